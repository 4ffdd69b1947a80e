import { AppError } from '@botfleet/core';
import {
  abandonDelivery as abandonDeliveryRow,
  claimDueDeliveries as claimDueDeliveryRows,
  findDeliveryOfOrganization,
  loadManifest,
  recordDeliveryAttempts as recordDeliveryAttemptRows,
  releaseDeliveryClaim as releaseDeliveryClaimRow,
  restartDelivery,
  type DeliveryAttemptRecord,
  type DeliveryClaim,
  type DeliveryForAttempt,
} from '@botfleet/db';
import { webhookDeliver } from '@botfleet/queue';
import { enqueueAfterCommit } from './after-commit';
import type { EngineDeps } from './engine-deps';

/*
 * A delivery's life: created with its execution's final write (completeExecution, the cancels,
 * the sweeper's failures), then one claimed and recorded attempt at a time, each next attempt
 * enqueued only after the previous one's record committed. The row decides; the jobs only wake
 * it up, and the delivery sweeper rebuilds a lost job from the row.
 */

/**
 * Takes the next attempt of each delivery that is pending and due, in one statement (with a lease
 * until `leaseUntil`), and loads what the attempts need. A delivery left out is someone else's or
 * has moved on: the caller sends nothing for it.
 */
export function claimDueDeliveries(deps: Pick<EngineDeps, 'db'>, claim: DeliveryClaim): Promise<DeliveryForAttempt[]> {
  return claimDueDeliveryRows(deps.db, claim);
}

/** Gives a claimed attempt back, due as before, without making it. False when the lease was lost. */
export function releaseDeliveryClaim(deps: Pick<EngineDeps, 'db'>, delivery: DeliveryForAttempt): Promise<boolean> {
  return releaseDeliveryClaimRow(deps.db, delivery);
}

/**
 * Records a batch of attempts and moves each delivery on (delivered, failed, or due again) in one
 * statement, then enqueues each next attempt, delayed until it is due. Returns the deliveries
 * recorded; one left out had its attempt already recorded by another job or is no longer pending,
 * and nothing was written or enqueued for it.
 */
export async function recordDeliveryAttempts(
  deps: EngineDeps,
  records: readonly DeliveryAttemptRecord[],
): Promise<Set<string>> {
  const recorded = await recordDeliveryAttemptRows(deps.db, records);
  for (const { outcome, deliveryId, number } of records) {
    if (outcome.status !== 'pending' || !recorded.has(deliveryId)) continue;
    const delay = Math.max(0, outcome.nextAttemptAt.getTime() - Date.now());
    await enqueueAfterCommit(deps.logger, { deliveryId, attempt: number + 1 }, () =>
      webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: number + 1 }, { delay }),
    );
  }
  return recorded;
}

/** recordDeliveryAttempts of one attempt: false when nothing was written or enqueued. */
export async function recordDeliveryAttempt(deps: EngineDeps, record: DeliveryAttemptRecord): Promise<boolean> {
  return (await recordDeliveryAttempts(deps, [record])).has(record.deliveryId);
}

/** Ends a pending delivery without an attempt (its webhook was disabled meanwhile). False when it was not pending. */
export function abandonDelivery(deps: Pick<EngineDeps, 'db'>, deliveryId: string, reason: string): Promise<boolean> {
  return abandonDeliveryRow(deps.db, deliveryId, reason);
}

/**
 * Starts a new attempt series of a finished delivery (same id, so the same `webhook-id`, and same
 * body, due now), then enqueues its first attempt. 409 while the delivery is still pending or its
 * webhook is disabled. Returns the delivery as it is now (null if deleted meanwhile).
 */
export async function redeliverDelivery(
  deps: EngineDeps,
  input: { organizationId: string; delivery: { id: string; botId: string } },
) {
  const { db } = deps;
  const { delivery } = input;
  const manifest = await loadManifest(db, delivery.botId);
  if (manifest.webhookDisabledAt)
    throw new AppError('conflict', 'The webhook is disabled; PUT its section to enable it first');
  const attempt = await restartDelivery(db, delivery.id);
  if (attempt === null) throw new AppError('conflict', 'The delivery is still pending');
  await enqueueAfterCommit(deps.logger, { deliveryId: delivery.id, attempt }, () =>
    webhookDeliver.enqueue(deps.queues, { deliveryId: delivery.id }, { attempt }),
  );
  return findDeliveryOfOrganization(db, input.organizationId, delivery.id);
}
