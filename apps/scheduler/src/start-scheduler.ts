import { defineRole, repeatedLog, settlesWithin, startPeriodic, type Logger, type RedisSettings } from '@botfleet/core';
import { pingDatabase, type ArtifactStore, type PrismaClient } from '@botfleet/db';
import { createOps, type Ops } from '@botfleet/ops';
import {
  consume,
  consumerReady,
  createQueues,
  closeRedis,
  createRedisConnection,
  queueSlotReady,
  scheduleTick,
  schedulerIdOf,
  stopWorker,
  tickSlotOf,
} from '@botfleet/queue';
import { reconcileSchedules } from './reconcile';
import { deleteExpiredExecutionsPass } from './retention';
import { createScheduleTickProcessor } from './schedule-tick.processor';

/** The metric label of each way a slot fires no run. */
const SKIP_REASONS = {
  skipped: 'disarmed',
  'overlap-skipped': 'overlap',
  'pending-cap-skipped': 'pending_cap',
} as const;

export interface SchedulerOptions {
  db: PrismaClient;
  /** How to reach Redis (REDIS_*, parsed once). */
  redis: RedisSettings;
  queuePrefix: string;
  logger: Logger;
  /** How often Redis is reconciled with the schedule rows (default 30 s). */
  reconcileIntervalMs?: number;
  /** Ticks processed at once by this process (default 10). */
  concurrency?: number;
  /** How long start-up waits for the first reconcile pass, and stop() for ticks in flight (default 10 s). */
  closeTimeoutMs?: number;
  /**
   * EXECUTION_RETENTION_DAYS: executions that finished longer ago than this many days are deleted
   * with their output, logs, screenshots and deliveries. Unset keeps everything.
   */
  executionRetentionDays?: number;
  /** How often the retention pass runs (default 10 min; the first pass runs at start). */
  retentionIntervalMs?: number;
  /** Executions deleted per statement (default 500). */
  retentionBatchSize?: number;
  /**
   * Delete only this organization's executions. Tests share one database: unscoped, one test's
   * retention would delete another file's rows.
   */
  retentionOrganizationId?: string;
  /** ARTIFACT_STORE's store: retention removes the deleted runs' S3 objects from it. PostgreSQL (nothing to remove) when omitted. */
  artifactStore?: ArtifactStore;
  /** The process's metrics and readiness checks (the launcher's); a private set when omitted. */
  ops?: Ops;
  /** MAX_PENDING_EXECUTIONS_PER_ORG: a slot past the organization's pending cap fires nothing (default 10,000). */
  maxPendingExecutionsPerOrg?: number;
}

/**
 * The schedule runner: a consumer of `schedule.tick` jobs, and a reconcile loop (once at start,
 * then every period) that keeps the job schedulers in Redis equal to the schedule rows. Any
 * number of these may run at once: BullMQ produces one job per slot, and the database refuses a
 * second execution for the same slot.
 */
export const schedulerRole = defineRole({ name: 'scheduler', start: startSchedulerRole });
export const startScheduler = schedulerRole.start;
export type SchedulerHandle = Awaited<ReturnType<typeof startScheduler>>;

async function startSchedulerRole(options: SchedulerOptions) {
  const logger = options.logger.child({ role: 'scheduler' });
  const ops = options.ops ?? createOps();
  const reconcileIntervalMs = options.reconcileIntervalMs ?? 30_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;

  // Producer-style connection (fails fast) for queue calls, so a Redis outage fails a reconcile
  // pass or a tick attempt (both retried) instead of hanging it; the worker retries forever.
  const producerRedis = createRedisConnection(options.redis, 'producer');
  const workerRedis = createRedisConnection(options.redis, 'worker');
  for (const [name, connection] of [
    ['producer', producerRedis],
    ['worker', workerRedis],
  ] as const) {
    connection.on('error', (err: Error) =>
      repeatedLog.warn(logger, { connection: name, err: err.message }, 'scheduler redis connection error'),
    );
  }
  const queues = createQueues(producerRedis, options.queuePrefix);
  const deps = { db: options.db, queues, logger };
  const settings = { maxPendingExecutionsPerOrg: options.maxPendingExecutionsPerOrg };

  const processTick = createScheduleTickProcessor({ ...deps, settings });
  const worker = consume(
    scheduleTick,
    { connection: workerRedis, prefix: options.queuePrefix, concurrency: options.concurrency ?? 10, logger },
    (payload, job) => {
      // How late the slot is handled; retries of the same tick are not counted again.
      const slot = tickSlotOf(job.id, schedulerIdOf(payload.botId));
      if (slot !== null && job.attemptsMade === 0)
        ops.metrics.scheduleLag.observe(Math.max(0, Date.now() - slot) / 1000);
      return processTick(payload, job).then((outcome) => {
        if (outcome === 'skipped' || outcome === 'overlap-skipped' || outcome === 'pending-cap-skipped')
          ops.metrics.scheduleTicksSkipped.inc({ reason: SKIP_REASONS[outcome] });
        return outcome;
      });
    },
  );
  worker.on('failed', (job, err) =>
    logger.warn({ jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, 'schedule tick failed'),
  );

  const reconciler = startPeriodic(
    { name: 'schedule reconcile pass', intervalMs: reconcileIntervalMs, runAtStart: true, logger },
    async () => {
      const result = await reconcileSchedules(deps);
      if (result.armed + result.disarmed + result.failed > 0) logger.info(result, 'schedules reconciled');
    },
  );
  // Every scheduler process may run it: each batch takes only rows no other process holds.
  const retention =
    options.executionRetentionDays === undefined
      ? null
      : startRetention(options.db, logger, {
          retentionDays: options.executionRetentionDays,
          intervalMs: options.retentionIntervalMs ?? 600_000,
          batchSize: options.retentionBatchSize,
          organizationId: options.retentionOrganizationId,
          artifactStore: options.artifactStore,
        });

  // Start-up waits for the first pass so schedules are armed when this resolves, but not for
  // ever: with Redis down the pass keeps trying in the background and start-up goes on.
  if (!(await settlesWithin(reconciler.runNow(), closeTimeoutMs))) {
    logger.warn('first schedule reconcile pass is still running; continuing start-up');
  }
  const unready = [
    ops.readiness.add('database', () => pingDatabase(options.db)),
    ops.readiness.add('redis', () =>
      Promise.all([
        queueSlotReady(producerRedis, options.queuePrefix, scheduleTick.queue),
        queueSlotReady(workerRedis, options.queuePrefix, scheduleTick.queue),
        consumerReady(worker),
      ]),
    ),
  ];
  const unwatch = ops.watchQueues([queues.get(scheduleTick.queue)]);
  logger.info(
    { queuePrefix: options.queuePrefix, reconcileIntervalMs, executionRetentionDays: options.executionRetentionDays },
    'scheduler started',
  );

  return {
    /** Runs one reconcile pass now, or joins the one in flight (tests use it instead of waiting for the timer). */
    reconcileNow: reconciler.runNow,
    /** Runs one retention pass now, or joins the one in flight; resolves at once when retention is off. */
    deleteExpiredNow: (): Promise<void> => retention?.runNow() ?? Promise.resolve(),
    async stop() {
      for (const remove of unready) remove();
      unwatch();
      // Stop taking ticks, give those in flight until the deadline, then force-close. A tick cut
      // off here keeps its lock until it expires; then another process (or a restart) redoes
      // it, which is harmless because ticks are idempotent. A reconcile pass in flight gets the
      // same deadline.
      const [drained] = await Promise.all([
        stopWorker(worker, closeTimeoutMs),
        settlesWithin(reconciler.stop(), closeTimeoutMs),
        // Aborting ends the pass after its current batch, which is one short statement.
        settlesWithin(retention?.stop() ?? Promise.resolve(), closeTimeoutMs),
      ]);
      if (!drained) logger.warn({ closeTimeoutMs }, 'schedule ticks did not finish in time; closing anyway');
      await settlesWithin(queues.close(), closeTimeoutMs);
      await Promise.all([closeRedis(producerRedis), closeRedis(workerRedis)]);
      // A pass that outlived the deadline (Redis unreachable, a slow machine) fails at once on the
      // closed connections: let it end, and log, before saying the role stopped, so nothing of
      // this role logs or reconnects afterwards.
      await Promise.all([
        settlesWithin(reconciler.stop(), closeTimeoutMs),
        settlesWithin(retention?.stop() ?? Promise.resolve(), closeTimeoutMs),
      ]);
      logger.info('scheduler stopped');
    },
  };
}

function startRetention(
  db: PrismaClient,
  logger: Logger,
  options: {
    retentionDays: number;
    intervalMs: number;
    batchSize?: number;
    organizationId?: string;
    artifactStore?: ArtifactStore;
  },
) {
  const { retentionDays, intervalMs, batchSize, organizationId, artifactStore } = options;
  // Not awaited by start-up: a first pass over a large backlog may take a while.
  return startPeriodic({ name: 'execution retention pass', intervalMs, runAtStart: true, logger }, async (signal) => {
    const deleted = await deleteExpiredExecutionsPass(db, {
      retentionDays,
      batchSize,
      organizationId,
      signal,
      artifactStore,
      logger,
    });
    if (deleted > 0) logger.info({ deleted, retentionDays }, 'expired executions deleted');
  });
}
