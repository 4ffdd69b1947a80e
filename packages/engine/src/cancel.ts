import { AppError, notFound } from '@botfleet/core';
import { findExecution, type Execution } from '@botfleet/db';
import {
  cancelBotExecutions as cancelBotExecutionRows,
  cancelExecution as cancelExecutionRow,
} from '@botfleet/db/state';
import { cancelChannel, executionRun, removeJob, webhookDeliver } from '@botfleet/queue';
import { notifyBestEffort, publishRunChanges, statusNotice } from './after-commit';
import type { CancelDeps } from './engine-deps';
import { wakeNextProfileRun } from './profile-turns';

/*
 * A cancel makes the row final first, in one transaction with its `execution.cancelled`
 * deliveries. Everything after is a notice: a waiting job is dropped, a running worker is told to
 * stop, the event deliveries are enqueued. A job that stays queued ends at its claim, and a worker
 * that misses the message cannot write its result, because the row is already final.
 */

/** Cancels one pending or running execution; 404 when it is not the organization's, 409 when it already ended. */
export async function cancelExecution(
  deps: CancelDeps,
  input: { organizationId: string; executionId: string },
): Promise<Execution> {
  const cancelled = await cancelExecutionRow(deps.db, input.organizationId, input.executionId);
  if (!cancelled) {
    // Read again: the caller's copy of the row may predate whatever ended it meanwhile.
    const current = await findExecution(deps.db, input.organizationId, input.executionId);
    if (!current) throw notFound('Execution');
    throw new AppError('conflict', `Execution is already ${current.status}`);
  }
  const { deliveryIds, ...execution } = cancelled;
  await notifyBestEffort(deps.logger, { executionId: execution.id }, [
    removeJob(deps.queues, executionRun, executionRun.jobIdOf({ executionId: execution.id })),
    deps.redis.publish(cancelChannel(deps.queues.prefix), execution.id),
    publishRunChanges(deps, [statusNotice(execution)]),
    ...deliveryIds.map((deliveryId) => webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: 1 })),
    // A cancelled run no longer holds its profile's turn: the next one need not wait its recheck.
    ...(execution.profileId ? [wakeNextProfileRun(deps, execution.profileId)] : []),
  ]);
  return execution;
}

/** Cancels the bot's runs in `statuses` (pending, and running when asked); returns how many. */
export async function cancelBotExecutions(
  deps: CancelDeps,
  input: { organizationId: string; botId: string; statuses: ('pending' | 'running')[] },
): Promise<number> {
  const { executions, deliveryIds } = await cancelBotExecutionRows(deps.db, input);
  const executionIds = executions.map((row) => row.id);
  await notifyBestEffort(deps.logger, { botId: input.botId, cancelled: executionIds.length }, [
    ...executionIds.map((executionId) => removeJob(deps.queues, executionRun, executionRun.jobIdOf({ executionId }))),
    ...(input.statuses.includes('running')
      ? executionIds.map((id) => deps.redis.publish(cancelChannel(deps.queues.prefix), id))
      : []),
    publishRunChanges(
      deps,
      executions.map((row) => statusNotice({ ...row, organizationId: input.organizationId, botId: input.botId })),
    ),
    ...deliveryIds.map((deliveryId) => webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: 1 })),
  ]);
  return executionIds.length;
}
