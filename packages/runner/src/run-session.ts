import type { LogLevel, LogSource, StepResult } from '@botfleet/core';

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
  /** Stores a binary artifact (e.g. a screenshot) and returns its id. */
  saveArtifact(kind: 'screenshot', contentType: string, data: Buffer): Promise<string>;
}
