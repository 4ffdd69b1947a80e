import type { Logger, SecretBox } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import {
  claimDeliveryAttempts,
  postponeDeliveryAttempt,
  recordDeliveryAttempts,
  type AttemptOutcome,
  type DeliveryDeps,
  type SentDeliveryAttempt,
  type WebhookDisableReason,
} from '@botfleet/engine';
import type { JobNextStep, Queues, WebhookDeliverPayload } from '@botfleet/queue';
import type { ConnectionPool, JwtTokenCache } from '@botfleet/webhooks';
import { createAutoBatcher } from './auto-batcher';
import { destinationOf, type DestinationSlots } from './destination-slots';
import { createCredentialOpener } from './open-credentials';
import { sendAttempt } from './send-attempt';

/*
 * One attempt of a delivery per job. The engine claims it, decides what the receiver's answer
 * makes of the delivery and its webhook, and answers the job's next step; this sends the request,
 * bounds the attempts in flight per destination, and reports what happened to the metrics.
 */

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

/** How long an attempt over its destination's bound waits in the process for a slot before the engine postpones it. */
const DESTINATION_WAIT_MS = 100;

/** Claims and records of the jobs running at once share one statement, up to this many. */
const MAX_BATCH = 64;

/** Registered with `consume(webhookDeliver, ...)`, which parses the payload first and applies the step returned. */
export function createWebhookDeliverProcessor(deps: WebhookDeliverProcessorDeps) {
  const { db, queues, logger, timeoutMs, retryDelaysMs, disableAfterMs } = deps;
  const engine: DeliveryDeps = { db, queues, logger, deliveryPolicy: { timeoutMs, retryDelaysMs, disableAfterMs } };
  const claim = createAutoBatcher((deliveryIds: string[]) => claimDeliveryAttempts(engine, deliveryIds), MAX_BATCH);
  const record = createAutoBatcher((sent: SentDeliveryAttempt[]) => recordDeliveryAttempts(engine, sent), MAX_BATCH);
  const openCredentials = createCredentialOpener(deps.secretBox);

  return async ({ deliveryId }: WebhookDeliverPayload): Promise<JobNextStep> => {
    const claimed = await claim(deliveryId);
    if (claimed.delivery === null) return claimed.next;
    const { delivery } = claimed;
    const release = await deps.destinationSlots?.take(destinationOf(delivery.url), DESTINATION_WAIT_MS);
    if (release === null) return postponeDeliveryAttempt(engine, delivery);
    try {
      const startedAt = new Date();
      const answer = await sendAttempt(deps, openCredentials, delivery);
      // The destination's slot is free again once it answered (or timed out); the rest is database work.
      release?.();
      const recorded = await record({ delivery, startedAt, answer });
      if (!recorded.recorded) return recorded.next;
      deps.onAttempt?.(recorded.outcome, answer.durationMs);
      if (recorded.disabled) {
        deps.onWebhookDisabled?.(recorded.disabled.reason);
        // The host only: a URL may carry a credential in its query.
        deps.logger.warn(
          { deliveryId, botId: delivery.botId, host: destinationOf(delivery.url), reason: recorded.disabled.reason },
          `webhook disabled: ${recorded.disabled.message}`,
        );
      }
      return recorded.next;
    } finally {
      release?.();
    }
  };
}
