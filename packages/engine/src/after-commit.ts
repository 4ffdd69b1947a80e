import { repeatedLog, settlesWithin, type Logger } from '@botfleet/core';
import { publishExecutionNotices, type ExecutionNotice } from '@botfleet/queue';
import type { EngineDeps } from './engine-deps';

/** How long a command waits for its best-effort notices before it answers anyway. */
const NOTIFY_WAIT_MS = 2_000;

/**
 * The enqueue that follows a committed transaction. The row is the truth and a sweeper rebuilds
 * a missing job from it, so a refused enqueue is logged and left to the sweeper: the command has
 * succeeded either way, and its caller answers as if the job were queued. `refusedMessage` names
 * the repair when it is not the sweepers' (a schedule's job scheduler is rebuilt by the reconciler).
 */
export async function enqueueAfterCommit(
  logger: Logger,
  context: Record<string, unknown>,
  enqueue: () => Promise<unknown>,
  refusedMessage = 'enqueue failed; the sweeper will enqueue from the row',
): Promise<void> {
  try {
    await enqueue();
  } catch (err) {
    // Throttled: while Redis is away every trigger fails this way, and a line per request is a flood.
    repeatedLog.warn(logger, { ...context, err: (err as Error).message }, refusedMessage);
  }
}

/**
 * The notices that follow a committed state change (event webhooks, the cancel channel, a job
 * dropped from the queue). None decides anything: the row is already final, a delivery row
 * without its job is found by the delivery sweeper, and a worker that misses a cancel cannot
 * write its result. So they are waited for briefly, and failures are only logged.
 */
export async function notifyBestEffort(
  logger: Logger,
  context: Record<string, unknown>,
  notices: Promise<unknown>[],
): Promise<void> {
  if (notices.length === 0) return;
  await settlesWithin(
    Promise.allSettled(notices).then((results) => {
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed.length > 0)
        repeatedLog.warn(
          logger,
          { ...context, failed: failed.length, err: (failed[0]!.reason as Error)?.message },
          'best-effort notice failed; the sweepers and the final row cover it',
        );
    }),
    NOTIFY_WAIT_MS,
  );
}

/**
 * The live streams' notices of committed changes to runs (docs/live-runs.md), on the queues' own
 * connection. A notice, like the others: the row is the truth, a lost one is made good by the
 * run's next change, so the caller passes this to notifyBestEffort.
 */
export function publishRunChanges(
  deps: Pick<EngineDeps, 'queues'>,
  notices: Omit<ExecutionNotice, 'at'>[],
): Promise<void> {
  if (notices.length === 0) return Promise.resolve();
  return publishExecutionNotices(deps.queues.connection, deps.queues.prefix, notices);
}

/** The notice of a run's new status (or attempt), from the row as the command wrote it. */
export function statusNotice(row: {
  id: string;
  organizationId: string;
  botId: string;
  status: ExecutionNotice['status'];
  attempt: number;
}): Omit<ExecutionNotice, 'at'> {
  const { id: executionId, organizationId, botId, status, attempt } = row;
  return { executionId, organizationId, botId, status, attempt, changed: ['status'] };
}
