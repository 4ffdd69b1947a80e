import { CONFIG_DEFAULTS, type SecretBox } from '@botfleet/core';
import { sweepDeliveries } from '@botfleet/engine';
import { defineFleetRole, type FleetRoleOptions } from '@botfleet/ops';
import { webhookDeliver } from '@botfleet/queue';
import { createConnectionPool, JwtTokenCache } from '@botfleet/webhooks';
import { createDestinationSlots, slotsPerDestination } from './destination-slots';
import { createWebhookDeliverProcessor } from './webhook-deliver.processor';

export interface StartDeliveryOptions extends FleetRoleOptions {
  secretBox: SecretBox;
  /** Jobs in flight in this process; the role scales by running more processes. */
  concurrency: number;
  allowPrivateNetwork: boolean;
  /** WEBHOOK_TIMEOUT_MS: how long one attempt may take. */
  webhookTimeoutMs: number;
  /** WEBHOOK_RETRY_DELAYS_MS: the pause before each further attempt. */
  retryDelaysMs: number[];
  /** SWEEP_INTERVAL_SECONDS: how often the sweeper looks for deliveries whose job was lost. */
  sweepIntervalMs?: number;
  /** How long past due before a job counts as lost (default: the sweep interval). */
  sweepGraceMs?: number;
  /** Sweep only this organization's deliveries (tests and benchmarks share a database). */
  sweepOrganizationId?: string;
  /**
   * WEBHOOK_DISABLE_AFTER_DAYS in ms: a webhook whose deliveries all failed for this long is
   * disabled. Unset: only a 410 Gone disables one.
   */
  disableAfterMs?: number;
  /** Attempts in flight at once per destination (default: three quarters of `concurrency`). */
  maxInFlightPerDestination?: number;
}

/**
 * The delivery role: the webhook.deliver consumer and the lost-job sweeper. Its queue connection
 * waits for Redis (retries forever), as its consumer's does: a job that schedules its retry during
 * a Redis blip waits for Redis rather than losing the retry; the sweeper backs it up. An attempt
 * cut off at the drain deadline keeps its lease on the row and is retried once the lease expires.
 */
export const deliveryRole = defineFleetRole({
  name: 'delivery',
  queueConnection: 'worker',
  async start({ logger, ops, queues, consume, every }, options: StartDeliveryOptions) {
    // One token cache and one connection pool for the process, so deliveries to the same receiver
    // share one JWT login and reuse warm keep-alive sockets.
    const pool = createConnectionPool({ allowPrivateNetwork: options.allowPrivateNetwork });
    const processor = createWebhookDeliverProcessor({
      db: options.db,
      queues,
      logger,
      secretBox: options.secretBox,
      tokenCache: new JwtTokenCache(),
      pool,
      allowPrivateNetwork: options.allowPrivateNetwork,
      timeoutMs: options.webhookTimeoutMs,
      retryDelaysMs: options.retryDelaysMs,
      onAttempt: (outcome, durationMs) => {
        ops.metrics.webhookDeliveries.inc({ outcome });
        ops.metrics.webhookDeliveryDuration.observe(durationMs / 1000);
      },
      disableAfterMs: options.disableAfterMs,
      destinationSlots: createDestinationSlots(
        options.maxInFlightPerDestination ?? slotsPerDestination(options.concurrency),
      ),
      onWebhookDisabled: (reason) => ops.metrics.webhooksDisabled.inc({ reason }),
    });
    const worker = consume(
      webhookDeliver,
      {
        concurrency: options.concurrency,
        abandonedMessage: 'delivery attempts still in flight at the shutdown deadline; abandoning them',
      },
      processor,
    );
    worker.on('failed', (job, err) => logger.warn({ jobId: job?.id, err: err.message }, 'delivery job failed'));
    await worker.waitUntilReady();

    const sweepIntervalMs = options.sweepIntervalMs ?? CONFIG_DEFAULTS.SWEEP_INTERVAL_SECONDS * 1000;
    const sweepLog = logger.child({ component: 'delivery-sweeper' });
    every({ name: 'delivery sweep', intervalMs: sweepIntervalMs, logger: sweepLog }, (signal) =>
      sweepDeliveries(
        { db: options.db, queues, logger: sweepLog },
        { graceMs: options.sweepGraceMs ?? sweepIntervalMs, organizationId: options.sweepOrganizationId, signal },
      ),
    );
    return {
      startedLog: { concurrency: options.concurrency },
      close: () => pool.close(),
    };
  },
});
export const startDelivery = deliveryRole.start;
