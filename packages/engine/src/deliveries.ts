import { AppError } from '@botfleet/core';
import {
  findDeliveryOfOrganization,
  loadManifest,
  type DeliveryAttemptRecord,
  type DeliveryForAttempt,
} from '@botfleet/db';
import {
  abandonDelivery,
  claimDueDeliveries,
  clearWebhookFailing,
  disableWebhook,
  noteWebhookFailing,
  recordDeliveryAttempts as recordDeliveryAttemptRows,
  releaseDeliveryClaim,
  restartDelivery,
} from '@botfleet/db/state';
import { webhookDeliver, type JobNextStep } from '@botfleet/queue';
import { enqueueAfterCommit } from './after-commit';
import {
  claimWindow,
  decideDeliveryAttempt,
  DESTINATION_BUSY_RECHECK_MS,
  extendsFailingStreak,
  type AttemptOutcome,
  type DeliveryAnswer,
  type DeliveryDecision,
  type DeliveryPolicy,
  type WebhookDisable,
} from './delivery-policy';
import type { EngineDeps } from './engine-deps';

/*
 * A delivery's life: created with its execution's final write (completeExecution, the cancels,
 * the sweeper's failures), then one claimed and recorded attempt at a time, each next attempt
 * enqueued only after the previous one's record committed. The row decides; the jobs only wake
 * it up, and the delivery sweeper rebuilds a lost job from the row.
 *
 * Retries are explicit: after a failed attempt the record writes nextAttemptAt on the row and
 * adds a NEW delayed job for the next attempt, instead of using BullMQ's attempts/backoff.
 * - The row stays the truth. BullMQ's retry state (attemptsMade, the backoff delay) lives only in
 *   Redis; after a flush or failover it is gone, and delays here run to hours. From the row
 *   alone the sweeper can rebuild the exact job (same attempt number, same due time).
 * - Every attempt gets its own job id, so a stray duplicate of an old attempt cannot dedupe away
 *   the next one, and the attempt history is in PostgreSQL where the API can read it.
 * - A change of WEBHOOK_RETRY_DELAYS_MS applies to deliveries already in flight.
 * So the job of an attempt is done once the attempt is recorded, whatever its outcome.
 */

/** The delivery commands' dependencies: the engine's, and the delivery role's settings. */
export interface DeliveryDeps extends EngineDeps {
  deliveryPolicy: DeliveryPolicy;
}

const DONE: JobNextStep = { kind: 'done' };

/** A job's claim of its attempt: the delivery to send, or, when there is none, what the job does next. */
export type DeliveryAttemptClaim = { delivery: DeliveryForAttempt } | { delivery: null; next: JobNextStep };

/**
 * Claims, in one statement, the next attempt of each delivery that is pending and due (with a
 * lease) and loads what the attempts need; one claim per id, in order. A delivery left out is
 * someone else's or has moved on, and one whose webhook was disabled since it was created is
 * ended: its job sends nothing.
 */
export async function claimDeliveryAttempts(
  deps: DeliveryDeps,
  deliveryIds: readonly string[],
): Promise<DeliveryAttemptClaim[]> {
  const claimed = await claimDueDeliveries(deps.db, { deliveryIds, ...claimWindow(deps.deliveryPolicy, Date.now()) });
  const byId = new Map(claimed.map((delivery) => [delivery.id, delivery]));
  const claims: DeliveryAttemptClaim[] = [];
  for (const deliveryId of deliveryIds) {
    const delivery = byId.get(deliveryId);
    // Two jobs of one delivery in the same batch: the row goes to the first, the other sends nothing.
    byId.delete(deliveryId);
    if (!delivery) {
      deps.logger.debug({ deliveryId }, 'delivery not pending, not due, or claimed by another job; nothing to do');
      claims.push({ delivery: null, next: DONE });
    } else if (delivery.webhookDisabledAt) {
      // Disabled after this delivery was created: nothing more is sent until a PUT enables it.
      await abandonDelivery(deps.db, deliveryId, 'webhook disabled');
      deps.logger.info({ deliveryId, botId: delivery.botId }, 'webhook is disabled; delivery dropped');
      claims.push({ delivery: null, next: DONE });
    } else {
      claims.push({ delivery });
    }
  }
  return claims;
}

/**
 * The claimed attempt's destination is busy: the attempt is given back unmade, due as it was, so
 * the job asked again later (or the sweeper) finds it unclaimed.
 */
export async function postponeDeliveryAttempt(
  deps: Pick<EngineDeps, 'db'>,
  delivery: DeliveryForAttempt,
): Promise<JobNextStep> {
  await releaseDeliveryClaim(deps.db, delivery);
  return { kind: 'delay', ms: DESTINATION_BUSY_RECHECK_MS };
}

/** An attempt made: the claimed delivery, when the request started, and the receiver's answer. */
export interface SentDeliveryAttempt {
  delivery: DeliveryForAttempt;
  startedAt: Date;
  answer: DeliveryAnswer;
}

/** What recording an attempt did; `disabled` is set when this attempt disabled the webhook. */
export type RecordedDeliveryAttempt =
  | { recorded: false; next: JobNextStep }
  | { recorded: true; outcome: AttemptOutcome; disabled: WebhookDisable | null; next: JobNextStep };

interface DecidedAttempt {
  attempt: SentDeliveryAttempt;
  record: DeliveryAttemptRecord;
  decision: DeliveryDecision;
}

/**
 * Records a batch of attempts: decides each one's outcome (docs/webhooks.md), writes the attempts
 * and moves each delivery on (delivered, failed, or due again), then enqueues each next attempt,
 * delayed until it is due, and moves the webhook's health on. One result per attempt, in order;
 * an attempt whose number another job already recorded, or whose delivery is no longer pending,
 * writes and enqueues nothing.
 */
export async function recordDeliveryAttempts(
  deps: DeliveryDeps,
  attempts: readonly SentDeliveryAttempt[],
): Promise<RecordedDeliveryAttempt[]> {
  const decided = await Promise.all(attempts.map((attempt) => decideAttempt(deps, attempt)));
  const recorded = await recordInRounds(deps, decided);
  return Promise.all(decided.map((one) => (recorded.has(one) ? afterRecord(deps, one) : discarded(deps, one))));
}

async function decideAttempt(deps: DeliveryDeps, attempt: SentDeliveryAttempt): Promise<DecidedAttempt> {
  const { delivery, startedAt, answer } = attempt;
  const number = delivery.attemptCount + 1;
  // One write per failing streak: later failures read its start from the manifest.
  const failingSince =
    delivery.webhookFailingSince ??
    (extendsFailingStreak(answer) ? await noteWebhookFailing(deps.db, delivery.botId, startedAt) : null);
  const decision = decideDeliveryAttempt(
    deps.deliveryPolicy,
    { answer, attemptInSeries: number - delivery.seriesFirstAttempt + 1, startedAt, failingSince },
    new Date(),
  );
  const { durationMs, statusCode, error } = answer;
  const record = { deliveryId: delivery.id, number, startedAt, durationMs, statusCode, error, outcome: decision.row };
  return { attempt, record, decision };
}

/**
 * One attempt per delivery in a statement: two of one delivery (only after a lost lease) go one
 * after the other, and the second then finds its number taken. Returns the attempts written.
 */
async function recordInRounds(deps: DeliveryDeps, decided: readonly DecidedAttempt[]): Promise<Set<DecidedAttempt>> {
  const written = new Set<DecidedAttempt>();
  for (let rest = decided; rest.length > 0;) {
    const ids = new Set<string>();
    const round: DecidedAttempt[] = [];
    const later: DecidedAttempt[] = [];
    for (const one of rest) {
      const { deliveryId } = one.record;
      (ids.has(deliveryId) ? later : round).push(one);
      ids.add(deliveryId);
    }
    const recorded = await recordDeliveryAttemptRows(
      deps.db,
      round.map((one) => one.record),
    );
    for (const one of round) if (recorded.has(one.record.deliveryId)) written.add(one);
    rest = later;
  }
  return written;
}

async function discarded(deps: DeliveryDeps, { record }: DecidedAttempt): Promise<RecordedDeliveryAttempt> {
  deps.logger.warn(
    { deliveryId: record.deliveryId, attempt: record.number },
    'attempt already recorded by another job; result discarded',
  );
  return { recorded: false, next: DONE };
}

/** The work that follows a recorded attempt: its next attempt's job, then the webhook's health. */
async function afterRecord(deps: DeliveryDeps, decided: DecidedAttempt): Promise<RecordedDeliveryAttempt> {
  const { record, decision } = decided;
  const { delivery, answer } = decided.attempt;
  const { deliveryId, number } = record;
  if (decision.row.status === 'pending') {
    const delay = Math.max(0, decision.row.nextAttemptAt.getTime() - Date.now());
    // A lost enqueue is the sweeper's: the row says the attempt is due.
    await enqueueAfterCommit(deps.logger, { deliveryId, attempt: number + 1 }, () =>
      webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: number + 1 }, { delay }),
    );
  }
  if (decision.endsFailingStreak) await clearWebhookFailing(deps.db, delivery.botId);
  const disabled =
    decision.disable && (await disableWebhook(deps.db, delivery.botId, decision.disable.message))
      ? decision.disable
      : null;
  if (decision.row.status === 'pending') {
    deps.logger.info(
      { deliveryId, attempt: number, retryInMs: decision.retryInMs },
      'webhook attempt failed; retry scheduled',
    );
  } else if (decision.row.status === 'failed') {
    deps.logger.warn({ deliveryId, attempts: number, lastError: answer.error }, 'webhook delivery failed for good');
  }
  return { recorded: true, outcome: decision.outcome, disabled, next: DONE };
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
