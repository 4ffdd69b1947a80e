import {
  createPostgresArtifactStore,
  newArtifactId,
  type ArtifactStore,
  writeProgress,
  type ArtifactRecord,
  type LogRecord,
  type PrismaClient,
  type ProgressBatch,
  type StepOutputRecord,
} from '@botfleet/db';
import type { CredentialSource, RunSession } from '@botfleet/runner';

/** Caps keep one chatty script from filling the database. */
const MAX_LOG_LINES = 5_000;
const MAX_LOG_MESSAGE = 8_000;

export interface DbRunSession extends RunSession {
  /** Takes everything buffered so far (for a periodic flush or the final transaction). */
  drain(): ProgressBatch;
  /** Writes the buffer now if anything is in it; errors are the caller's to log. */
  flush(): Promise<void>;
}

/**
 * A RunSession that buffers step outputs, logs and artifacts in memory and writes them in
 * batches: a run makes a few writes per second instead of one per log line. What the program
 * records reaches it through runExecution's guarded session, which has already held every step
 * output and log line to MAX_STEP_OUTPUT_BYTES / MAX_EXECUTION_OUTPUT_BYTES (runner's
 * OutputBudget), so the buffer never holds more than a run may store.
 */
export function createDbRunSession(options: {
  db: PrismaClient;
  executionId: string;
  params: Record<string, unknown>;
  deadline: number;
  /** The try this session records; every log line says it. */
  attempt?: number;
  /** Opens the credentials the run's `fill` steps name (see browser-session.ts). */
  credentials?: CredentialSource;
  /** Where artifacts' content goes (ARTIFACT_STORE); PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
  /**
   * Told after each committed write what it held (step outputs, log lines), so the live streams
   * hear of it (docs/live-runs.md); best effort, it must not throw.
   */
  afterWrite?: (changed: ('steps' | 'logs')[]) => Promise<void>;
}): DbRunSession {
  const artifactStore = options.artifactStore ?? createPostgresArtifactStore();
  const attempt = options.attempt ?? 1;
  let steps: StepOutputRecord[] = [];
  let logs: LogRecord[] = [];
  let artifacts: ArtifactRecord[] = [];
  let logCount = 0;

  const drain = (): ProgressBatch => {
    const batch = { steps, logs, artifacts };
    steps = [];
    logs = [];
    artifacts = [];
    return batch;
  };

  return {
    params: options.params,
    deadline: options.deadline,
    credentials: options.credentials,
    recordStep(result) {
      steps.push({ ...result });
    },
    log(level, source, message) {
      logCount++;
      if (logCount > MAX_LOG_LINES) {
        if (logCount === MAX_LOG_LINES + 1)
          logs.push({
            timestamp: Date.now(),
            level: 'warn',
            source: 'system',
            message: `Log limit of ${MAX_LOG_LINES} lines reached; further lines dropped`,
            attempt,
          });
        return;
      }
      const text = message.length > MAX_LOG_MESSAGE ? `${message.slice(0, MAX_LOG_MESSAGE)}… (truncated)` : message;
      logs.push({ timestamp: Date.now(), level, source, message: text, attempt });
    },
    async saveArtifact(kind, contentType, content, artifactOptions = {}) {
      const id = newArtifactId();
      // The content goes to the store now (a trace streams from its file); the row with the rest.
      const placed = await artifactStore.put(
        { executionId: options.executionId, artifactId: id, contentType },
        content,
      );
      artifacts.push({ id, kind, contentType, stepIndex: artifactOptions.stepIndex ?? null, ...placed });
      return id;
    },
    drain,
    async flush() {
      const batch = drain();
      if (batch.steps.length + batch.logs.length + batch.artifacts.length === 0) return;
      await writeProgress(options.db, options.executionId, batch);
      const changed = [
        ...(batch.steps.length > 0 ? (['steps'] as const) : []),
        ...(batch.logs.length > 0 ? (['logs'] as const) : []),
      ];
      if (changed.length > 0) await options.afterWrite?.(changed);
    },
  };
}
