import type { Logger } from '@botfleet/core';
import type { ClaimedExecution } from '@botfleet/db';
import { notifyBestEffort, publishRunChanges } from '@botfleet/engine';
import { createCredentialSource } from './browser-session';
import { createDbRunSession, SupersededAttemptError, type DbRunSession } from './db-run-session';
import type { ExecutionRunProcessorDeps, RunEngineDeps } from './execution-run-deps';

const FLUSH_EVERY_MS = 1_000;

/**
 * The session one attempt records into: fenced to the attempt, with its credentials, its
 * artifact store and sealing, and a notice to the live streams after each write.
 */
export function createAttemptSession(
  deps: ExecutionRunProcessorDeps,
  engine: RunEngineDeps,
  claimed: ClaimedExecution,
  timeoutMs: number,
  log: Logger,
): DbRunSession {
  const executionId = claimed.id;
  return createDbRunSession({
    db: deps.db,
    executionId,
    params: claimed.params,
    deadline: Date.now() + timeoutMs,
    attempt: claimed.attempt,
    credentials: createCredentialSource(deps.db, deps.secretBox, claimed.organizationId),
    artifactStore: deps.artifactStore,
    secretBox: deps.secretBox,
    // A run on a profile is logged in: whatever it saves may show what the login opens.
    sealArtifacts: claimed.profileId !== null,
    logger: log,
    // The run's output is new, its status is not: readers fetch the steps and logs past their cursor.
    afterWrite: (changed) =>
      notifyBestEffort(log, { executionId }, [
        publishRunChanges(engine, [
          {
            executionId,
            organizationId: claimed.organizationId,
            botId: claimed.botId,
            status: 'running',
            attempt: claimed.attempt,
            changed,
          },
        ]),
      ]),
  });
}

/**
 * Writes the session's buffer every FLUSH_EVERY_MS, one write after the other, while the program
 * runs; the returned function stops and waits for the write in flight.
 */
export function flushWhileRunning(session: DbRunSession, log: Logger): () => Promise<void> {
  let flushing: Promise<void> = Promise.resolve();
  const flusher = setInterval(() => {
    flushing = flushing
      .then(() => session.flush())
      .catch((err: unknown) => {
        // Superseded: the session's `stopped` signal has already aborted the run.
        if (!(err instanceof SupersededAttemptError))
          log.warn({ err: (err as Error).message }, 'progress flush failed');
      });
  }, FLUSH_EVERY_MS);
  return async () => {
    clearInterval(flusher);
    await flushing;
  };
}
