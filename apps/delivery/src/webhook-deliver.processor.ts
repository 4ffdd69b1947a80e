import type { Logger, SecretBox } from '@botfleet/core';
import {
  claimDeliveryAttempt,
  findDeliveryForAttempt,
  recordDeliveryAttempt,
  type DeliveryForAttempt,
  type DeliveryOutcome,
  type PrismaClient,
} from '@botfleet/db';
import { webhookDeliver, type Queues, type WebhookDeliverPayload } from '@botfleet/queue';
import {
  deliverWebhook,
  nextRetryDelayMs,
  type ConnectionPool,
  type DeliveryResult,
  type JwtTokenCache,
} from '@botfleet/webhooks';
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

export interface ProcessorDeps {
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
}

/** Jobs may start a little before the row's due time when process clocks disagree. */
const CLOCK_SKEW_TOLERANCE_MS = 1_000;

/** Registered with `consume(webhookDeliver, ...)`, which parses the payload first. */
export function createWebhookDeliverProcessor(deps: ProcessorDeps) {
  return ({ deliveryId }: WebhookDeliverPayload): Promise<void> => attemptDelivery(deps, deliveryId);
}

async function attemptDelivery(deps: ProcessorDeps, deliveryId: string): Promise<void> {
  const log = deps.logger.child({ deliveryId });
  const delivery = await findDeliveryForAttempt(deps.db, deliveryId);
  if (!delivery || delivery.status !== 'pending') {
    log.debug({ status: delivery?.status ?? 'gone' }, 'delivery is not pending; nothing to do');
    return;
  }
  // A due time in the future means another job holds this attempt's lease (or this job is a
  // stray early one). Either way that attempt, or the sweeper, owns the delivery now.
  const now = Date.now();
  if (delivery.nextAttemptAt && delivery.nextAttemptAt.getTime() > now + CLOCK_SKEW_TOLERANCE_MS) {
    log.debug({ nextAttemptAt: delivery.nextAttemptAt.getTime() }, 'delivery not due; another attempt owns it');
    return;
  }
  // The lease covers the worst case of one attempt: login, post, re-login, post.
  const leaseUntil = new Date(now + 4 * deps.timeoutMs + 30_000);
  const claimed = await claimDeliveryAttempt(deps.db, {
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
  const delayMs = result.ok ? null : nextRetryDelayMs(number, deps.retryDelaysMs);
  const outcome: DeliveryOutcome = result.ok
    ? { status: 'succeeded' }
    : delayMs === null
      ? { status: 'failed' }
      : { status: 'pending', nextAttemptAt: new Date(Date.now() + delayMs) };

  const recorded = await recordDeliveryAttempt(deps.db, {
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
  // Written to the row first, enqueued second: if this enqueue is lost, the sweeper re-creates it.
  if (outcome.status === 'pending' && delayMs !== null) {
    await webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: number + 1 }, { delay: delayMs });
    log.info({ attempt: number, retryInMs: delayMs }, 'webhook attempt failed; retry scheduled');
  } else if (outcome.status === 'failed') {
    log.warn({ attempts: number, lastError: result.error }, 'webhook delivery failed for good');
  }
}

/** One attempt; configuration problems come back as a failed result so they are recorded. */
async function sendOnce(deps: ProcessorDeps, delivery: DeliveryForAttempt, log: Logger): Promise<DeliveryResult> {
  let credentials;
  try {
    credentials = openCredentials(delivery, deps.secretBox);
  } catch (err) {
    if (!(err instanceof UnreadableSecretError)) throw err;
    log.error({ botId: delivery.botId }, err.message);
    return { ok: false, statusCode: null, error: err.message, durationMs: 0 };
  }
  return deliverWebhook(
    {
      deliveryId: delivery.id,
      organizationId: delivery.organizationId,
      botId: delivery.botId,
      executionId: delivery.executionId,
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
