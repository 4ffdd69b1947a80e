import { AppError } from '@botfleet/core';
import {
  abandonDelivery as abandonDeliveryRow,
  claimDeliveryAttempt as claimDeliveryAttemptRow,
  findDeliveryOfOrganization,
  loadManifest,
  recordDeliveryAttempt as recordDeliveryAttemptRow,
  restartDelivery,
  type DeliveryAttemptRecord,
  type DeliveryClaim,
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
 * Takes the next attempt of a pending delivery (compare-and-set on its attemptCount and
 * nextAttemptAt, with a lease until `leaseUntil`). False when another job took it first or the
 * delivery moved on: the caller then sends nothing.
 */
export function claimDeliveryAttempt(deps: Pick<EngineDeps, 'db'>, claim: DeliveryClaim): Promise<boolean> {
  return claimDeliveryAttemptRow(deps.db, claim);
}

/**
 * Records an attempt and moves the delivery on (delivered, failed, or due again), then enqueues
 * the next attempt, delayed until it is due. False, with nothing written or enqueued, when this
 * attempt was already recorded by another job or the delivery is no longer pending.
 */
export async function recordDeliveryAttempt(deps: EngineDeps, record: DeliveryAttemptRecord): Promise<boolean> {
  if (!(await recordDeliveryAttemptRow(deps.db, record))) return false;
  const { outcome, deliveryId } = record;
  if (outcome.status === 'pending') {
    const delay = Math.max(0, outcome.nextAttemptAt.getTime() - Date.now());
    await enqueueAfterCommit(deps.logger, { deliveryId, attempt: record.number + 1 }, () =>
      webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: record.number + 1 }, { delay }),
    );
  }
  return true;
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
