import { CONFIG_DEFAULTS, settlesWithin, type Logger } from '@botfleet/core';
import type { ArtifactStore } from '@botfleet/artifacts';
import type { PrismaClient } from '@botfleet/db';
import { reconcileSchedules } from '@botfleet/engine';
import { defineFleetRole, type FleetRoleOptions, type RoleScope } from '@botfleet/ops';
import { scheduleTick, schedulerIdOf, tickSlotOf } from '@botfleet/queue';
import { deleteExpiredExecutionsPass } from './retention';
import { createScheduleTickProcessor } from './schedule-tick.processor';

/** The metric label of each way a slot fires no run. */
const SKIP_REASONS = {
  skipped: 'disarmed',
  'overlap-skipped': 'overlap',
  'pending-cap-skipped': 'pending_cap',
} as const;

export interface SchedulerOptions extends FleetRoleOptions {
  /** How often Redis is reconciled with the schedule rows. */
  reconcileIntervalMs?: number;
  /** Ticks processed at once by this process. */
  concurrency?: number;
  /**
   * EXECUTION_RETENTION_DAYS: executions that finished longer ago than this many days are deleted
   * with their output, logs, screenshots and deliveries. Unset keeps everything.
   */
  executionRetentionDays?: number;
  /** How often the retention pass runs (the first pass runs at start). */
  retentionIntervalMs?: number;
  /** Executions deleted per statement (default RETENTION_BATCH_SIZE of @botfleet/db). */
  retentionBatchSize?: number;
  /**
   * Delete only this organization's executions. Tests share one database: unscoped, one test's
   * retention would delete another file's rows.
   */
  retentionOrganizationId?: string;
  /** ARTIFACT_STORE's store: retention removes the deleted runs' S3 objects from it. PostgreSQL (nothing to remove) when omitted. */
  artifactStore?: ArtifactStore;
  /** MAX_PENDING_EXECUTIONS_PER_ORG: a slot past the organization's pending cap fires nothing. */
  maxPendingExecutionsPerOrg?: number;
}

/**
 * The schedule runner: a consumer of `schedule.tick` jobs, and a reconcile loop (once at start,
 * then every period) that keeps the job schedulers in Redis equal to the schedule rows. Any
 * number of these may run at once: BullMQ produces one job per slot, and the database refuses a
 * second execution for the same slot. Its queue connection is a producer's (fails fast), so a
 * Redis outage fails a reconcile pass or a tick attempt (both retried) instead of hanging it; its
 * consumer's retries forever. A tick cut off at the drain deadline keeps its lock until it
 * expires; then another process (or a restart) redoes it, which is harmless because ticks are
 * idempotent. A retention pass stops after its current batch, one short statement.
 */
export const schedulerRole = defineFleetRole({
  name: 'scheduler',
  queueConnection: 'producer',
  async start({ logger, ops, queues, consume, every, drainTimeoutMs }, options: SchedulerOptions) {
    const reconcileIntervalMs = options.reconcileIntervalMs ?? CONFIG_DEFAULTS.fixed.reconcileIntervalMs;
    const deps = { db: options.db, queues, logger };
    const settings = { maxPendingExecutionsPerOrg: options.maxPendingExecutionsPerOrg };

    const processTick = createScheduleTickProcessor({ ...deps, settings });
    const worker = consume(
      scheduleTick,
      {
        concurrency: options.concurrency ?? CONFIG_DEFAULTS.fixed.scheduleTickConcurrency,
        abandonedMessage: 'schedule ticks did not finish in time; closing anyway',
      },
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

    const reconciler = every(
      { name: 'schedule reconcile pass', intervalMs: reconcileIntervalMs, runAtStart: true },
      async () => {
        const result = await reconcileSchedules(deps);
        if (result.armed + result.disarmed + result.failed > 0) logger.info(result, 'schedules reconciled');
      },
    );
    // Every scheduler process may run it: each batch takes only rows no other process holds.
    const retention =
      options.executionRetentionDays === undefined
        ? null
        : startRetention(every, options.db, logger, { ...options, retentionDays: options.executionRetentionDays });

    // Start-up waits for the first pass so schedules are armed when this resolves, but not for
    // ever: with Redis down the pass keeps trying in the background and start-up goes on.
    if (!(await settlesWithin(reconciler.runNow(), drainTimeoutMs))) {
      logger.warn('first schedule reconcile pass is still running; continuing start-up');
    }
    return {
      extras: {
        /** Runs one reconcile pass now, or joins the one in flight (tests use it instead of waiting for the timer). */
        reconcileNow: reconciler.runNow,
        /** Runs one retention pass now, or joins the one in flight; resolves at once when retention is off. */
        deleteExpiredNow: (): Promise<void> => retention?.runNow() ?? Promise.resolve(),
      },
      startedLog: { reconcileIntervalMs, executionRetentionDays: options.executionRetentionDays },
    };
  },
});
export const startScheduler = schedulerRole.start;
export type SchedulerHandle = Awaited<ReturnType<typeof startScheduler>>;

function startRetention(
  every: RoleScope['every'],
  db: PrismaClient,
  logger: Logger,
  options: Pick<
    SchedulerOptions,
    'retentionIntervalMs' | 'retentionBatchSize' | 'retentionOrganizationId' | 'artifactStore'
  > & {
    retentionDays: number;
  },
) {
  const { retentionDays, artifactStore } = options;
  // Not awaited by start-up: a first pass over a large backlog may take a while.
  return every(
    {
      name: 'execution retention pass',
      intervalMs: options.retentionIntervalMs ?? CONFIG_DEFAULTS.fixed.retentionIntervalMs,
      runAtStart: true,
    },
    async (signal) => {
      const deleted = await deleteExpiredExecutionsPass(db, {
        retentionDays,
        batchSize: options.retentionBatchSize,
        organizationId: options.retentionOrganizationId,
        signal,
        artifactStore,
        logger,
      });
      if (deleted > 0) logger.info({ deleted, retentionDays }, 'expired executions deleted');
    },
  );
}
