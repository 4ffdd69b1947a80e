import { settlesWithin, type Logger } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import { createQueues, createRedisConnection, jobs } from '@botfleet/queue';
import { Worker } from 'bullmq';
import { reconcileSchedules } from './reconcile';
import { createTickProcessor } from './tick.processor';

export interface SchedulerOptions {
  db: PrismaClient;
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  /** How often Redis is reconciled with the schedule rows (default 30 s). */
  reconcileIntervalMs?: number;
  /** Ticks processed at once by this process (default 10). */
  concurrency?: number;
  /** How long start-up waits for the first reconcile pass, and stop() for ticks in flight (default 10 s). */
  closeTimeoutMs?: number;
}

export interface SchedulerHandle {
  /** Runs one reconcile pass now (also used by tests instead of waiting for the timer). */
  reconcileNow(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the schedule runner: a worker consuming `schedule.tick` jobs, and a reconcile loop
 * (once at start, then every period) that keeps the job schedulers in Redis equal to the
 * schedule rows. Any number of these may run at once: BullMQ produces one job per slot, and
 * the database refuses a second execution for the same slot.
 */
export async function startScheduler(options: SchedulerOptions): Promise<SchedulerHandle> {
  const logger = options.logger.child({ role: 'scheduler' });
  const reconcileIntervalMs = options.reconcileIntervalMs ?? 30_000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;

  // Producer-style connection (fails fast) for queue calls, so a Redis outage fails a reconcile
  // pass or a tick attempt (both retried) instead of hanging it; the worker retries forever.
  const producerRedis = createRedisConnection(options.redisUrl, 'producer');
  const workerRedis = createRedisConnection(options.redisUrl, 'worker');
  for (const [name, connection] of [['producer', producerRedis], ['worker', workerRedis]] as const) {
    connection.on('error', (err: Error) => logger.warn({ connection: name, err: err.message }, 'scheduler redis connection error'));
  }
  const queues = createQueues(producerRedis, options.queuePrefix);
  const deps = { db: options.db, queues, logger };

  // Ticks in flight, tracked here because worker.close() cannot be given a deadline.
  const inFlight = new Set<Promise<unknown>>();
  const processTick = createTickProcessor(deps);
  const worker = new Worker(jobs['schedule.tick'].queue, (job) => {
    const tick = processTick(job);
    inFlight.add(tick);
    void tick.catch(() => undefined).finally(() => inFlight.delete(tick));
    return tick;
  }, {
    connection: workerRedis,
    prefix: options.queuePrefix,
    concurrency: options.concurrency ?? 10,
  });
  // An unhandled 'error' event would crash the process; Redis blips are expected and retried.
  worker.on('error', (err) => logger.error({ err: err.message }, 'schedule worker error'));
  worker.on('failed', (job, err) =>
    logger.warn({ jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, 'schedule tick failed'),
  );

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;

  // One pass at a time: a slow pass (Redis or the database down) must not pile up behind itself.
  const reconcileOnce = (): Promise<void> => {
    running ??= (async () => {
      try {
        const result = await reconcileSchedules(deps);
        if (result.armed + result.disarmed + result.failed > 0) logger.info(result, 'schedules reconciled');
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'schedule reconcile pass failed');
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const loop = async (): Promise<void> => {
    await reconcileOnce();
    if (!stopped) timer = setTimeout(() => void loop(), reconcileIntervalMs);
  };
  // Start-up waits for the first pass so schedules are armed when this resolves, but not for
  // ever: with Redis down the pass keeps trying in the background and start-up goes on.
  if (!(await settlesWithin(loop(), closeTimeoutMs))) {
    logger.warn('first schedule reconcile pass is still running; continuing start-up');
  }
  logger.info({ queuePrefix: options.queuePrefix, reconcileIntervalMs }, 'scheduler started');

  return {
    reconcileNow: reconcileOnce,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      // A graceful worker.close() waits for ticks in flight with no deadline, and never returns
      // while Redis is unreachable (it waits for its blocking connection first). So: stop taking
      // ticks, give those in flight until the deadline, then force-close. A tick cut off here
      // keeps its lock until it expires; then another process (or a restart) redoes it, which
      // is harmless because ticks are idempotent.
      await settlesWithin(worker.pause(true), closeTimeoutMs);
      if (!(await settlesWithin(Promise.allSettled([...inFlight]), closeTimeoutMs))) {
        logger.warn({ closeTimeoutMs, inFlight: inFlight.size }, 'schedule ticks did not finish in time; closing anyway');
      }
      await settlesWithin(worker.close(true), closeTimeoutMs);
      if (running) await settlesWithin(running, closeTimeoutMs);
      await settlesWithin(queues.close(), closeTimeoutMs);
      producerRedis.disconnect();
      workerRedis.disconnect();
      logger.info('scheduler stopped');
    },
  };
}
