import {
  createPostgresArtifactStore,
  deleteArtifactContent,
  putArtifactContent,
  type ArtifactStore,
} from '@botfleet/artifacts';
import {
  newArtifactId,
  writeProgress,
  type ArtifactRecord,
  type LogRecord,
  type PrismaClient,
  type ProgressBatch,
  type StepOutputRecord,
} from '@botfleet/db';
import type { Logger, SecretBox } from '@botfleet/core';
import type { CredentialSource, RunSession } from '@botfleet/runner';

/** Caps keep one chatty script from filling the database. */
const MAX_LOG_LINES = 5_000;
const MAX_LOG_MESSAGE = 8_000;

/**
 * A write of this attempt was refused: a newer attempt took the run over (this worker lost its
 * job, say cut off from Redis past its lock) or the run ended otherwise. The attempt must stop and
 * write nothing more; the row and the job are the newer attempt's (docs/runs.md).
 */
export class SupersededAttemptError extends Error {
  constructor(
    readonly executionId: string,
    readonly attempt: number,
  ) {
    super(`attempt ${attempt} of ${executionId} was superseded`);
    this.name = 'SupersededAttemptError';
  }
}

export interface DbRunSession extends RunSession {
  /** Takes everything buffered so far (for a periodic flush or the final transaction). */
  drain(): ProgressBatch;
  /**
   * Writes the buffer now, fenced to this attempt; with nothing buffered, only checks that the
   * attempt still holds the run, so a run waiting on a long step learns it too. Throws
   * SupersededAttemptError when the attempt no longer holds it; other errors are the caller's to log.
   */
  flush(): Promise<void>;
  /**
   * Aborted once a write finds the run no longer this attempt's to go on with: superseded (the
   * reason is a SupersededAttemptError; from then on the session drops every write) or cancelled
   * (the reason is 'cancelled'; what the run did up to the cancel is kept). The run aborts on it.
   */
  readonly stopped: AbortSignal;
  /** Throws the SupersededAttemptError if a write found the attempt superseded. */
  throwIfSuperseded(): void;
  /**
   * After a completion that did not finish: removes from the artifact store the content of the
   * batch's artifacts if their rows were not written (the attempt was superseded). Best effort.
   */
  discardIfSuperseded(batch: ProgressBatch): Promise<void>;
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
  /** Seals the artifacts of a run that holds secret values (SECRETS_KEY; docs/security.md). */
  secretBox?: SecretBox;
  /**
   * Seal every artifact of the run, whatever the runner says (a run on a profile: its pages are
   * logged in); the runner asks for sealing once the run holds secret values (ArtifactOptions.sealed).
   */
  sealArtifacts?: boolean;
  /** Told when content of a refused write could not be removed from the artifact store. */
  logger?: Logger;
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

  const fence = { executionId: options.executionId, attempt };
  const stop = new AbortController();
  // Set once a write is refused; from then on nothing of this attempt is buffered or stored.
  let supersededBy: SupersededAttemptError | null = null;
  const supersede = (): SupersededAttemptError => {
    supersededBy ??= new SupersededAttemptError(options.executionId, attempt);
    if (!stop.signal.aborted) stop.abort(supersededBy);
    drain();
    return supersededBy;
  };
  // Content the store holds for rows that will never be written: nothing may keep it (an orphaned
  // S3 object costs money and holds run output no one can reach). PostgreSQL's holds none.
  const removeStored = (stored: readonly { storageKey: string | null }[]) =>
    deleteArtifactContent(
      artifactStore,
      stored.map((artifact) => artifact.storageKey),
      {
        logger: options.logger,
        level: 'warn',
        message: 'could not remove a superseded attempt’s artifacts',
        fields: { executionId: options.executionId, attempt },
      },
    );

  return {
    params: options.params,
    deadline: options.deadline,
    credentials: options.credentials,
    recordStep(result) {
      if (supersededBy) return;
      steps.push({ ...result });
    },
    log(level, source, message) {
      if (supersededBy) return;
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
      if (supersededBy) throw supersededBy;
      const id = newArtifactId();
      const sealWith = artifactOptions.sealed === true || options.sealArtifacts === true ? options.secretBox : null;
      // Never stored in the clear instead: the runner logs that it could not be kept.
      if (sealWith === undefined) throw new Error('it must be sealed, and this worker has no SECRETS_KEY');
      // The content goes to the store now (a trace streams from its file); the row with the rest.
      const placed = await putArtifactContent(
        artifactStore,
        { executionId: options.executionId, artifactId: id, contentType },
        content,
        sealWith,
      );
      if (supersededBy) {
        await removeStored([placed]);
        throw supersededBy;
      }
      artifacts.push({ id, kind, contentType, stepIndex: artifactOptions.stepIndex ?? null, ...placed });
      return id;
    },
    drain,
    stopped: stop.signal,
    throwIfSuperseded() {
      if (supersededBy) throw supersededBy;
    },
    async flush() {
      if (supersededBy) throw supersededBy;
      const batch = drain();
      const write = await writeProgress(options.db, fence, batch);
      if (!write.owned) {
        const error = supersede();
        await removeStored(batch.artifacts);
        throw error;
      }
      if (write.cancelled && !stop.signal.aborted) stop.abort('cancelled');
      const changed = [
        ...(batch.steps.length > 0 ? (['steps'] as const) : []),
        ...(batch.logs.length > 0 ? (['logs'] as const) : []),
      ];
      if (changed.length > 0) await options.afterWrite?.(changed);
    },
    async discardIfSuperseded(batch) {
      if (batch.artifacts.length === 0) return;
      // A refused completion kept its batch only when the run was cancelled while this attempt
      // ran (endExecutionAttempt); the check reads a state that can no longer change for it.
      const held = await writeProgress(options.db, fence, { steps: [], logs: [], artifacts: [] }).catch(
        (err: unknown) => {
          options.logger?.warn(
            { ...fence, err: (err as Error).message },
            'could not tell whether the attempt was superseded',
          );
          return null;
        },
      );
      if (held && !held.owned) await removeStored(batch.artifacts);
    },
  };
}
