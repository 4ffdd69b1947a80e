import { createArtifactUrlSigner, type ArtifactUrlSettings, type Logger } from '@botfleet/core';
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
 * screenshot and the delivery rows of the webhook's events. Nothing is written when this
 * attempt no longer owns the execution (cancelled or re-claimed). The delivery jobs are enqueued
 * after commit; if that fails, the delivery sweeper finds the pending rows.
 *
 * With `artifactUrls`, an `execution.failed` event carries a signed URL of the screenshot, valid
 * for the configured lifetime from the failure (the body is fixed, so retries send the same URL).
 */
export async function completeExecution(
  deps: { db: PrismaClient; queues: Queues; logger: Logger; artifactUrls?: ArtifactUrlSettings },
  run: { executionId: string; botId: string; attempt: number; session: DbRunSession },
  outcome: RunOutcome,
): Promise<boolean> {
  const { db, logger } = deps;
  const batch = run.session.drain();
  let screenshotUrl: string | null = null;
  if (outcome.status === 'failed' && outcome.screenshot) {
    const id = newArtifactId();
    batch.artifacts.push({ id, kind: 'failure-screenshot', contentType: 'image/png', data: outcome.screenshot });
    const urls = deps.artifactUrls;
    if (urls) screenshotUrl = createArtifactUrlSigner(urls.signingKey, urls.baseUrl, urls.ttlSeconds).sign(id);
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
    screenshotUrl,
  });
  for (const deliveryId of result.deliveryIds) {
    await webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: 1 }).catch((err: unknown) => {
      logger.warn({ deliveryId, err: (err as Error).message }, 'delivery enqueue failed; the sweeper will pick it up');
    });
  }
  return result.finished;
}
