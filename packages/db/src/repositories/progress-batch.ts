import type { LogLevel, LogSource, StepResult } from '@botfleet/core';

/*
 * What one flush of a run's progress carries. Its own file because both the fenced writes
 * (execution-lifecycle.ts) and the unfenced INSERTs they call (progress-rows.ts) name it.
 */

export type StepOutputRecord = StepResult;

export interface LogRecord {
  timestamp: number;
  level: LogLevel;
  source: LogSource;
  message: string;
  /** The try that wrote the line (default 1). */
  attempt?: number;
}

/**
 * An artifact whose content the artifact store already holds (`data` here, or `storageKey` there):
 * what @botfleet/artifacts' `putArtifactContent` answers, with the row's own fields.
 */
export interface ArtifactRecord {
  id: string;
  kind: string;
  contentType: string;
  /** The content, when the store keeps it in the row (ARTIFACT_STORE=postgres, the failure screenshot). */
  data: Buffer | null;
  /** The object's key, when the store keeps the content elsewhere (ARTIFACT_STORE=s3). */
  storageKey: string | null;
  /** The content's size; the plain size when it is sealed. */
  bytes: number;
  /** The step it was taken after (step screenshots, a screenshot step's output). */
  stepIndex?: number | null;
  /** The content is sealed with SECRETS_KEY (putArtifactContent); `bytes` is then the plain size. */
  sealed?: boolean;
}

export interface ProgressBatch {
  steps: StepOutputRecord[];
  logs: LogRecord[];
  artifacts: ArtifactRecord[];
}
