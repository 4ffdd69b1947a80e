import type { ArtifactContent, ArtifactKind, LogLevel, LogSource, StepResult } from '@botfleet/core';
import type { CredentialSource, RunSecrets } from './run-secrets';

export type { StepResult };

export interface ArtifactOptions {
  /** The step it was taken after (step screenshots, a screenshot step's output). */
  stepIndex?: number;
  /**
   * The run held secret values when it was saved: the content may show them, so the store keeps
   * it sealed with SECRETS_KEY (docs/security.md).
   */
  sealed?: boolean;
}

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
  /**
   * Stores an artifact (a screenshot, a kept download, a trace) and returns its id: bytes, or a
   * file the artifact store streams from (the caller may delete it once this resolves).
   */
  saveArtifact(
    kind: ArtifactKind,
    contentType: string,
    content: ArtifactContent,
    options?: ArtifactOptions,
  ): Promise<string>;
  /**
   * The most one more output may take now, in bytes (see OutputBudget): reads inside the page
   * measure against it before transferring. Absent: unbounded (a session no run guards).
   */
  outputAllowance?(): number;
  /** Aborted once the run has a result: a program still going (an abandoned script) stops. */
  readonly signal?: AbortSignal;
  /** The worker's side: opens the credentials `fill` steps name. Absent: a step that names one fails. */
  readonly credentials?: CredentialSource;
  /**
   * The program's side (set by runExecution's guarded session): the run's secret values and
   * masked elements; everything written through this session is already redacted with it.
   */
  readonly secrets?: RunSecrets;
  /** The program's side (set by runExecution): keep a screenshot after every recorded step (capabilities.stepScreenshots). */
  readonly stepScreenshots?: boolean;
}
