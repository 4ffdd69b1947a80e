import type { Logger } from '@botfleet/core';
import { endExecutionAttempt, newArtifactId, type ExecutionOutcome, type PrismaClient } from '@botfleet/db';
import { webhookDeliver, type Queues } from '@botfleet/queue';
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
    batch.artifacts.push({
      id: newArtifactId(),
      kind: 'failure-screenshot',
      contentType: 'image/png',
      data: outcome.screenshot,
    });
  }
  const data = outcome.status === 'completed' && producedData(outcome.data) ? outcome.data : null;
  const state: ExecutionOutcome =
    outcome.status === 'completed'
      ? { status: 'completed', data }
      : { status: 'failed', error: outcome.error, stepIndex: outcome.stepIndex };
  const result = await endExecutionAttempt(db, {
    executionId: run.executionId,
    botId: run.botId,
    attempt: run.attempt,
    outcome: state,
    progress: batch,
  });
  if (result.deliveryId) {
    await webhookDeliver
      .enqueue(deps.queues, { deliveryId: result.deliveryId }, { attempt: 1 })
      .catch((err: unknown) => {
        logger.warn(
          { deliveryId: result.deliveryId, err: (err as Error).message },
          'delivery enqueue failed; the sweeper will pick it up',
        );
      });
  }
  return result.finished;
}
