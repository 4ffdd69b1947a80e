import type { Logger, SecretBox } from '@botfleet/core';
import {
  clearWebhookFailing,
  disableWebhook,
  findDeliveryForAttempt,
  noteWebhookFailing,
  type DeliveryForAttempt,
  type DeliveryOutcome,
  type PrismaClient,
} from '@botfleet/db';
import { abandonDelivery, claimDeliveryAttempt, recordDeliveryAttempt } from '@botfleet/engine';
import type { Queues, WebhookDeliverPayload } from '@botfleet/queue';
import {
  deliverWebhook,
  retryDelayMs,
  type ConnectionPool,
  type DeliveryResult,
  type JwtTokenCache,
} from '@botfleet/webhooks';
import { DelayedError, type Job } from 'bullmq';
import { destinationOf, type DestinationSlots } from './destination-slots';
import { openCredentials, UnreadableSecretError } from './open-credentials';

/*
 * Retries are explicit: after a failed attempt the processor writes nextAttemptAt on the row and
 * adds a NEW delayed job for the next attempt, instead of using BullMQ's attempts/backoff.
 * - The row stays the truth. BullMQ's retry state (attemptsMade, the backoff delay) lives only in
 *   Redis; after a flush or failover it is gone, and delays here run to hours. From the row
 *   alone the sweeper can rebuild the exact job (same attempt number, same due time).
 * - Every attempt gets its own job id, so a stray duplicate of an old attempt cannot dedupe away
 *   the next one, and the attempt history is in PostgreSQL where the API can read it.
 * - A change of WEBHOOK_RETRY_DELAYS_MS applies to deliveries already in flight.
 */

/** Why the delivery role disabled a webhook: the receiver answered 410, or only failed for days. */
export type WebhookDisableReason = 'gone' | 'failing';

export interface WebhookDeliverProcessorDeps {
  db: PrismaClient;
  queues: Queues;
  logger: Logger;
  secretBox: SecretBox;
  tokenCache: JwtTokenCache;
  /** Keep-alive sockets per receiver, for the process (created for `allowPrivateNetwork`). */
  pool: ConnectionPool;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
  retryDelaysMs: readonly number[];
  /** Told the outcome and duration of each recorded attempt (for metrics). */
  onAttempt?: (outcome: AttemptOutcome, durationMs: number) => void;
  /**
   * A webhook whose deliveries have all failed for this long is disabled
   * (WEBHOOK_DISABLE_AFTER_DAYS); unset never disables for failures (410 Gone still does).
   */
  disableAfterMs?: number;
  /** Bounds the attempts in flight per destination, so a slow receiver cannot hold every slot. */
  destinationSlots?: DestinationSlots;
  /** Told each time this process disables a webhook (for metrics). */
  onWebhookDisabled?: (reason: WebhookDisableReason) => void;
}

/** How long an attempt over its destination's bound waits in the process for a slot... */
const DESTINATION_WAIT_MS = 100;
/** ...and, when none freed (a slow receiver), how long it is postponed in the queue. */
const DESTINATION_BUSY_DELAY_MS = 250;

/** What one recorded attempt led to: delivered, a retry scheduled, or the delivery given up. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

/** Jobs may start a little before the row's due time when process clocks disagree. */
const CLOCK_SKEW_TOLERANCE_MS = 1_000;

/** Registered with `consume(webhookDeliver, ...)`, which parses the payload first. */
export function createWebhookDeliverProcessor(deps: WebhookDeliverProcessorDeps) {
  return ({ deliveryId }: WebhookDeliverPayload, job?: Job<unknown>, token?: string): Promise<void> =>
    attemptDelivery(deps, deliveryId, job && token ? { job, token } : undefined);
}

async function attemptDelivery(
  deps: WebhookDeliverProcessorDeps,
  deliveryId: string,
  owner?: { job: Job<unknown>; token: string },
): Promise<void> {
  const log = deps.logger.child({ deliveryId });
  const delivery = await findDeliveryForAttempt(deps.db, deliveryId);
  if (!delivery || delivery.status !== 'pending') {
    log.debug({ status: delivery?.status ?? 'gone' }, 'delivery is not pending; nothing to do');
    return;
  }
  if (delivery.webhookDisabledAt) {
    // Disabled after this delivery was created: nothing more is sent until a PUT enables it.
    await abandonDelivery(deps, deliveryId, 'webhook disabled');
    log.info({ botId: delivery.botId }, 'webhook is disabled; delivery dropped');
    return;
  }
  // Before the claim, so a postponed attempt leaves the row as it was (due, unclaimed).
  const release = await deps.destinationSlots?.take(destinationOf(delivery.url), DESTINATION_WAIT_MS);
  if (release === null && owner) {
    await owner.job.moveToDelayed(Date.now() + DESTINATION_BUSY_DELAY_MS, owner.token);
    throw new DelayedError();
  }
  try {
    await attemptClaimed(deps, delivery, log, release ?? undefined);
  } finally {
    release?.();
  }
}

async function attemptClaimed(
  deps: WebhookDeliverProcessorDeps,
  delivery: DeliveryForAttempt,
  log: Logger,
  release: (() => void) | undefined,
): Promise<void> {
  const deliveryId = delivery.id;
  // A due time in the future means another job holds this attempt's lease (or this job is a
  // stray early one). Either way that attempt, or the sweeper, owns the delivery now.
  const now = Date.now();
  if (delivery.nextAttemptAt && delivery.nextAttemptAt.getTime() > now + CLOCK_SKEW_TOLERANCE_MS) {
    log.debug({ nextAttemptAt: delivery.nextAttemptAt.getTime() }, 'delivery not due; another attempt owns it');
    return;
  }
  // The lease covers the worst case of one attempt: login, post, re-login, post.
  const leaseUntil = new Date(now + 4 * deps.timeoutMs + 30_000);
  const claimed = await claimDeliveryAttempt(deps, {
    deliveryId,
    attemptCount: delivery.attemptCount,
    nextAttemptAt: delivery.nextAttemptAt,
    leaseUntil,
  });
  if (!claimed) {
    log.debug('another job claimed this attempt first');
    return;
  }

  const number = delivery.attemptCount + 1;
  const startedAt = new Date();
  const result = await sendOnce(deps, delivery, log);
  // The destination's slot is free again once it answered (or timed out); the rest is database work.
  release?.();
  const disableFor = result.ok ? null : await disableReason(deps, delivery, result, startedAt);
  const delayMs =
    result.ok || disableFor
      ? null
      : retryDelayMs(number - delivery.seriesFirstAttempt + 1, deps.retryDelaysMs, result.retryAfterMs);
  const outcome: DeliveryOutcome = result.ok
    ? { status: 'succeeded' }
    : delayMs === null
      ? { status: 'failed' }
      : { status: 'pending', nextAttemptAt: new Date(Date.now() + delayMs) };

  // The engine enqueues the next attempt once the record committed; a lost enqueue is the sweeper's.
  const recorded = await recordDeliveryAttempt(deps, {
    deliveryId,
    number,
    startedAt,
    durationMs: result.durationMs,
    statusCode: result.statusCode,
    error: result.error,
    outcome,
  });
  if (!recorded) {
    log.warn({ attempt: number }, 'attempt already recorded by another job; result discarded');
    return;
  }
  deps.onAttempt?.(
    outcome.status === 'succeeded' ? 'delivered' : outcome.status === 'failed' ? 'failed' : 'retry',
    result.durationMs,
  );
  if (result.ok && delivery.webhookFailingSince) await clearWebhookFailing(deps.db, delivery.botId);
  if (disableFor && (await disableWebhook(deps.db, delivery.botId, disableFor.message))) {
    deps.onWebhookDisabled?.(disableFor.reason);
    // The host only: a URL may carry a credential in its query.
    log.warn(
      { botId: delivery.botId, host: destinationOf(delivery.url), reason: disableFor.reason },
      `webhook disabled: ${disableFor.message}`,
    );
  }
  if (outcome.status === 'pending') {
    log.info({ attempt: number, retryInMs: delayMs }, 'webhook attempt failed; retry scheduled');
  } else if (outcome.status === 'failed') {
    log.warn({ attempts: number, lastError: result.error }, 'webhook delivery failed for good');
  }
}

/** One attempt; configuration problems come back as a failed result so they are recorded. */
async function sendOnce(
  deps: WebhookDeliverProcessorDeps,
  delivery: DeliveryForAttempt,
  log: Logger,
): Promise<DeliveryResult> {
  let credentials;
  try {
    credentials = openCredentials(delivery, deps.secretBox);
  } catch (err) {
    if (!(err instanceof UnreadableSecretError)) throw err;
    log.error({ botId: delivery.botId }, err.message);
    return { ok: false, statusCode: null, error: err.message, durationMs: 0, retryAfterMs: null };
  }
  return deliverWebhook(
    {
      deliveryId: delivery.id,
      organizationId: delivery.organizationId,
      botId: delivery.botId,
      executionId: delivery.executionId,
      event: delivery.event,
      url: delivery.url,
      auth: delivery.auth,
      body: delivery.body,
      secret: credentials.secret,
      password: credentials.password,
      loginUrl: delivery.loginUrl ?? undefined,
      username: delivery.username ?? undefined,
    },
    {
      allowPrivateNetwork: deps.allowPrivateNetwork,
      timeoutMs: deps.timeoutMs,
      tokenCache: deps.tokenCache,
      logger: deps.logger,
      pool: deps.pool,
    },
  );
}

/**
 * Whether this failed attempt ends the webhook: the receiver said 410 Gone, or it has failed
 * without a success in between for `disableAfterMs`. Null while it is still worth retrying.
 */
async function disableReason(
  deps: WebhookDeliverProcessorDeps,
  delivery: DeliveryForAttempt,
  result: DeliveryResult,
  startedAt: Date,
): Promise<{ reason: WebhookDisableReason; message: string } | null> {
  if (result.statusCode === 410) return { reason: 'gone', message: 'the receiver answered 410 Gone' };
  // One write per failing streak: later failures read the start from the manifest.
  const since = delivery.webhookFailingSince ?? (await noteWebhookFailing(deps.db, delivery.botId, startedAt));
  if (deps.disableAfterMs === undefined || since === null) return null;
  if (startedAt.getTime() - since.getTime() < deps.disableAfterMs) return null;
  const days = Math.round((deps.disableAfterMs / 86_400_000) * 100) / 100;
  return { reason: 'failing', message: `every delivery failed for ${days} day(s)` };
}
