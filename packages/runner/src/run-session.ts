import type { ArtifactKind, LogLevel, LogSource, StepResult } from '@botfleet/core';

export type { StepResult };

/**
 * What a running program (recorded steps or a sandboxed script) may do besides driving the page.
 * The worker implements it on top of the database; tests implement it in memory. The runner
 * never imports the database.
 */
export interface RunSession {
  /** Trigger params, already validated against the manifest. */
  readonly params: Record<string, unknown>;
  /** Unix ms after which the run must stop (the hard timeout). */
  readonly deadline: number;
  /** Records a step output; called in step order. */
  recordStep(result: StepResult): void;
  /** Appends a log line. Never pass secrets. */
  log(level: LogLevel, source: LogSource, message: string): void;
  /** Stores a binary artifact (a screenshot, a kept download) and returns its id. */
  saveArtifact(kind: ArtifactKind, contentType: string, data: Buffer): Promise<string>;
  /**
   * The most one more output may take now, in bytes (see OutputBudget): reads inside the page
   * measure against it before transferring. Absent: unbounded (a session no run guards).
   */
  outputAllowance?(): number;
  /** Aborted once the run has a result: a program still going (an abandoned script) stops. */
  readonly signal?: AbortSignal;
}
