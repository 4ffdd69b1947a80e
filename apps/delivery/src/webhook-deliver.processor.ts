import type { Logger, SecretBox } from '@botfleet/core';
import {
  clearWebhookFailing,
  disableWebhook,
  noteWebhookFailing,
  type DeliveryAttemptRecord,
  type DeliveryForAttempt,
  type DeliveryOutcome,
  type PrismaClient,
} from '@botfleet/db';
import { abandonDelivery, claimDueDeliveries, recordDeliveryAttempts, releaseDeliveryClaim } from '@botfleet/engine';
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
import { createCredentialOpener, UnreadableSecretError, type CredentialOpener } from './open-credentials';
import { createAutoBatcher } from './auto-batcher';

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

/** Claims and records of the jobs running at once share one statement, up to this many. */
const MAX_BATCH = 64;

/** What every attempt of the processor shares: the batched claim and record, the opened credentials. */
interface AttemptContext {
  deps: WebhookDeliverProcessorDeps;
  claim: (deliveryId: string) => Promise<DeliveryForAttempt | null>;
  record: (record: DeliveryAttemptRecord) => Promise<boolean>;
  openCredentials: CredentialOpener;
}

/** Registered with `consume(webhookDeliver, ...)`, which parses the payload first. */
export function createWebhookDeliverProcessor(deps: WebhookDeliverProcessorDeps) {
  const context: AttemptContext = {
    deps,
    claim: createAutoBatcher(async (deliveryIds: string[]) => {
      // The lease covers the worst case of one attempt: login, post, re-login, post. A due time
      // in the future means another job holds the attempt's lease (or this job is a stray early
      // one): the claim leaves that row out, and that attempt, or the sweeper, owns the delivery.
      const now = Date.now();
      const claimed = await claimDueDeliveries(deps, {
        deliveryIds,
        dueBy: new Date(now + CLOCK_SKEW_TOLERANCE_MS),
        leaseUntil: new Date(now + 4 * deps.timeoutMs + 30_000),
      });
      const byId = new Map(claimed.map((delivery) => [delivery.id, delivery]));
      // Two jobs of one delivery in the same batch: the row goes to the first, the other sends nothing.
      return deliveryIds.map((id) => {
        const delivery = byId.get(id) ?? null;
        byId.delete(id);
        return delivery;
      });
    }, MAX_BATCH),
    record: createAutoBatcher(async (records: DeliveryAttemptRecord[]) => {
      // One attempt per delivery in a statement: two of one delivery (only after a lost lease) go
      // one after the other, and the second then finds its number taken.
      const recorded = new Map<DeliveryAttemptRecord, boolean>();
      for (let rest = records; rest.length > 0;) {
        const ids = new Set<string>();
        const round: DeliveryAttemptRecord[] = [];
        const later: DeliveryAttemptRecord[] = [];
        for (const record of rest) {
          if (ids.has(record.deliveryId)) {
            later.push(record);
          } else {
            ids.add(record.deliveryId);
            round.push(record);
          }
        }
        const written = await recordDeliveryAttempts(deps, round);
        for (const record of round) recorded.set(record, written.has(record.deliveryId));
        rest = later;
      }
      return records.map((record) => recorded.get(record)!);
    }, MAX_BATCH),
    openCredentials: createCredentialOpener(deps.secretBox),
  };
  return ({ deliveryId }: WebhookDeliverPayload, job?: Job<unknown>, token?: string): Promise<void> =>
    attemptDelivery(context, deliveryId, job && token ? { job, token } : undefined);
}

async function attemptDelivery(
  context: AttemptContext,
  deliveryId: string,
  owner?: { job: Job<unknown>; token: string },
): Promise<void> {
  const { deps } = context;
  const delivery = await context.claim(deliveryId);
  if (!delivery) {
    deps.logger.debug({ deliveryId }, 'delivery not pending, not due, or claimed by another job; nothing to do');
    return;
  }
  if (delivery.webhookDisabledAt) {
    // Disabled after this delivery was created: nothing more is sent until a PUT enables it.
    await abandonDelivery(deps, deliveryId, 'webhook disabled');
    deps.logger.info({ deliveryId, botId: delivery.botId }, 'webhook is disabled; delivery dropped');
    return;
  }
  const release = await deps.destinationSlots?.take(destinationOf(delivery.url), DESTINATION_WAIT_MS);
  if (release === null && owner) {
    // Given back due as it was, so the postponed job (or the sweeper) finds it unclaimed.
    await releaseDeliveryClaim(deps, delivery);
    await owner.job.moveToDelayed(Date.now() + DESTINATION_BUSY_DELAY_MS, owner.token);
    throw new DelayedError();
  }
  try {
    await attemptClaimed(context, delivery, release ?? undefined);
  } finally {
    release?.();
  }
}

async function attemptClaimed(
  context: AttemptContext,
  delivery: DeliveryForAttempt,
  release: (() => void) | undefined,
): Promise<void> {
  const { deps } = context;
  const deliveryId = delivery.id;
  const number = delivery.attemptCount + 1;
  const startedAt = new Date();
  const result = await sendOnce(context, delivery);
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
  const recorded = await context.record({
    deliveryId,
    number,
    startedAt,
    durationMs: result.durationMs,
    statusCode: result.statusCode,
    error: result.error,
    outcome,
  });
  if (!recorded) {
    deps.logger.warn({ deliveryId, attempt: number }, 'attempt already recorded by another job; result discarded');
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
    deps.logger.warn(
      { deliveryId, botId: delivery.botId, host: destinationOf(delivery.url), reason: disableFor.reason },
      `webhook disabled: ${disableFor.message}`,
    );
  }
  if (outcome.status === 'pending') {
    deps.logger.info({ deliveryId, attempt: number, retryInMs: delayMs }, 'webhook attempt failed; retry scheduled');
  } else if (outcome.status === 'failed') {
    deps.logger.warn({ deliveryId, attempts: number, lastError: result.error }, 'webhook delivery failed for good');
  }
}

/** One attempt; configuration problems come back as a failed result so they are recorded. */
async function sendOnce(context: AttemptContext, delivery: DeliveryForAttempt): Promise<DeliveryResult> {
  const { deps } = context;
  let credentials;
  try {
    credentials = context.openCredentials(delivery);
  } catch (err) {
    if (!(err instanceof UnreadableSecretError)) throw err;
    deps.logger.error({ deliveryId: delivery.id, botId: delivery.botId }, err.message);
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
