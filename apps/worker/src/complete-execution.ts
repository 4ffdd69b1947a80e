import type { Logger } from '@botfleet/core';
import {
  createDeliveryForCompletedExecution,
  findExecutionState,
  finishExecution,
  newArtifactId,
  writeProgress,
  type ExecutionOutcome,
  type PrismaClient,
} from '@botfleet/db';
import { enqueueDelivery, type Queues } from '@botfleet/queue';
import type { DbRunSession } from './db-run-session';

export type RunOutcome = ExecutionOutcome & { screenshot?: Buffer | null };

/**
 * A run with nothing extracted (no extract steps, a script returning nothing) produced no data:
 * its extract endpoint answers 404 and no webhook is sent, rather than publishing `{}`.
 */
function producedData(data: unknown): boolean {
  if (data === null || data === undefined) return false;
  return !(typeof data === 'object' && !Array.isArray(data) && Object.keys(data).length === 0);
}

/**
 * Ends the execution in one transaction: the final state, the rest of its output, the failure
 * screenshot and (on success with a webhook) the delivery row. Nothing is written when this
 * attempt no longer owns the execution (cancelled or re-claimed). The delivery job is enqueued
 * after commit; if that fails, the delivery sweeper finds the pending row.
 */
export async function completeExecution(
  deps: { db: PrismaClient; queues: Queues; logger: Logger },
  run: { executionId: string; botId: string; attempt: number; session: DbRunSession },
  outcome: RunOutcome,
): Promise<boolean> {
  const { db, logger } = deps;
  const batch = run.session.drain();
  if (outcome.status === 'failed' && outcome.screenshot) {
    batch.artifacts.push({ id: newArtifactId(), kind: 'failure-screenshot', contentType: 'image/png', data: outcome.screenshot });
  }
  const result = await db.$transaction(async (tx) => {
    const data = outcome.status === 'completed' && producedData(outcome.data) ? outcome.data : null;
    const state = outcome.status === 'completed' ? { status: 'completed' as const, data } : { status: 'failed' as const, error: outcome.error, stepIndex: outcome.stepIndex };
    if (!(await finishExecution(tx, run.executionId, run.attempt, state))) {
      // A cancelled run still keeps what it logged and did up to the cancel; a superseded
      // attempt (re-claimed by another worker) keeps nothing, the newer attempt owns the output.
      const row = await findExecutionState(tx, run.executionId);
      if (row?.status === 'cancelled' && row.attempt === run.attempt) await writeProgress(tx, run.executionId, batch);
      return { finished: false, deliveryId: null };
    }
    await writeProgress(tx, run.executionId, batch);
    const delivery =
      data !== null ? await createDeliveryForCompletedExecution(tx, { executionId: run.executionId, botId: run.botId, extractedData: data }) : null;
    return { finished: true, deliveryId: delivery?.id ?? null };
  });
  if (result.deliveryId) {
    await enqueueDelivery(deps.queues, result.deliveryId, 1).catch((err: unknown) => {
      logger.warn({ deliveryId: result.deliveryId, err: (err as Error).message }, 'delivery enqueue failed; the sweeper will pick it up');
    });
  }
  return result.finished;
}
