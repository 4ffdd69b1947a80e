import {
  CONFIG_DEFAULTS,
  defineRole,
  repeatedLog,
  settlesWithin,
  startPeriodic,
  type Logger,
  type RedisSettings,
  type SecretBox,
} from '@botfleet/core';
import { pingDatabase, type PrismaClient } from '@botfleet/db';
import { sweepDeliveries } from '@botfleet/engine';
import { createOps, type Ops } from '@botfleet/ops';
import {
  consume,
  consumerReady,
  createQueues,
  closeRedis,
  createRedisConnection,
  queueSlotReady,
  stopWorker,
  webhookDeliver,
} from '@botfleet/queue';
import { createConnectionPool, JwtTokenCache } from '@botfleet/webhooks';
import { createDestinationSlots, slotsPerDestination } from './destination-slots';
import { createWebhookDeliverProcessor } from './webhook-deliver.processor';

export interface StartDeliveryOptions {
  db: PrismaClient;
  /** How to reach Redis (REDIS_*, parsed once). */
  redis: RedisSettings;
  queuePrefix: string;
  logger: Logger;
  secretBox: SecretBox;
  /** Jobs in flight in this process; the role scales by running more processes. */
  concurrency: number;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
  retryDelaysMs: number[];
  /** SWEEP_INTERVAL_SECONDS: how often the sweeper looks for deliveries whose job was lost. */
  sweepIntervalMs?: number;
  /** How long past due before a job counts as lost (default: the sweep interval). */
  sweepGraceMs?: number;
  /** Sweep only this organization's deliveries (tests and benchmarks share a database). */
  sweepOrganizationId?: string;
  /** How long stop() waits for attempts in flight before abandoning them (default 15 s). */
  closeTimeoutMs?: number;
  /**
   * WEBHOOK_DISABLE_AFTER_DAYS in ms: a webhook whose deliveries all failed for this long is
   * disabled. Unset: only a 410 Gone disables one.
   */
  disableAfterMs?: number;
  /** Attempts in flight at once per destination (default: three quarters of `concurrency`). */
  maxInFlightPerDestination?: number;
  /** The process's metrics and readiness checks (the launcher's); a private set when omitted. */
  ops?: Ops;
}

/** The delivery role: the webhook.deliver consumer and the lost-job sweeper. */
export const deliveryRole = defineRole({ name: 'delivery', start: startDeliveryRole });
export const startDelivery = deliveryRole.start;

async function startDeliveryRole(options: StartDeliveryOptions) {
  const logger = options.logger.child({ role: 'delivery' });
  const ops = options.ops ?? createOps();
  // Worker-style connection (retries forever) for the re-enqueue too: a job that schedules its
  // retry during a Redis blip waits for Redis rather than losing the retry; the sweeper backs it up.
  const connection = createRedisConnection(options.redis, 'worker');
  connection.on('error', (err: Error) =>
    repeatedLog.warn(logger, { err: err.message }, 'redis (delivery) connection error'),
  );
  const queues = createQueues(connection, options.queuePrefix);

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
    timeoutMs: options.timeoutMs,
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
    { connection, prefix: options.queuePrefix, concurrency: options.concurrency, logger },
    processor,
  );
  worker.on('failed', (job, err) => logger.warn({ jobId: job?.id, err: err.message }, 'delivery job failed'));
  await worker.waitUntilReady();

  const sweepIntervalMs = options.sweepIntervalMs ?? CONFIG_DEFAULTS.SWEEP_INTERVAL_SECONDS * 1000;
  const sweepLog = logger.child({ component: 'delivery-sweeper' });
  const sweeper = startPeriodic({ name: 'delivery sweep', intervalMs: sweepIntervalMs, logger: sweepLog }, (signal) =>
    sweepDeliveries(
      { db: options.db, queues, logger: sweepLog },
      { graceMs: options.sweepGraceMs ?? sweepIntervalMs, organizationId: options.sweepOrganizationId, signal },
    ),
  );
  const unready = [
    ops.readiness.add('database', () => pingDatabase(options.db)),
    ops.readiness.add('redis', () =>
      Promise.all([queueSlotReady(connection, options.queuePrefix, webhookDeliver.queue), consumerReady(worker)]),
    ),
  ];
  const unwatch = ops.watchQueues([queues.get(webhookDeliver.queue)]);
  logger.info({ concurrency: options.concurrency, queuePrefix: options.queuePrefix }, 'delivery role started');

  return {
    async stop() {
      for (const remove of unready) remove();
      const closeTimeoutMs = options.closeTimeoutMs ?? 15_000;
      // An attempt cut off at the deadline keeps its lease on the row and is retried by a
      // sweeper once the lease expires. A sweep pass in flight winds down under the same deadline.
      const [drained] = await Promise.all([
        stopWorker(worker, closeTimeoutMs),
        settlesWithin(sweeper.stop(), closeTimeoutMs),
      ]);
      if (!drained) logger.warn('delivery attempts still in flight at the shutdown deadline; abandoning them');
      unwatch();
      pool.close();
      await queues.close();
      await closeRedis(connection);
      logger.info('delivery role stopped');
    },
  };
}
