import { defineRole, settlesWithin, startPeriodic, type Logger } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import { consume, createQueues, closeRedis, createRedisConnection, executionRun, stopWorker } from '@botfleet/queue';
import {
  createBrowserHost,
  createEgressGuard,
  createProxyPool,
  loadAdBlocker,
  removeOrphanedProfiles,
  resolveChromiumPath,
  startEgressProxy,
  type AdBlocker,
} from '@botfleet/runner';
import { listenForCancellations } from './cancellations';
import { createExecutionProcessor, failAbandonedExecution } from './execution-processor';
import { sweepExecutions } from './sweep-executions';

export interface WorkerOptions {
  db: PrismaClient;
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  /** Executions run at once in this process (WORKER_CONCURRENCY). */
  concurrency: number;
  chromiumPath?: string;
  extraBrowserArgs?: string[];
  proxyUrls: string[];
  defaultTimeoutSeconds: number;
  adBlocker?: AdBlocker;
  /** ALLOW_PRIVATE_NETWORK: false refuses bots' requests to private, loopback and link-local addresses. */
  allowPrivateNetwork?: boolean;
  /** How long a job's lock lasts without renewal; a dead worker's job returns after this. */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  sweepIntervalMs?: number;
  pendingGraceMs?: number;
  /**
   * Sweep only this organization's executions. Tests and benchmarks share one database across
   * queue prefixes: unscoped, one worker's sweep would fail another prefix's running rows.
   */
  sweepOrganizationId?: string;
  /** How long SIGTERM waits for runs in flight before handing them back. */
  drainTimeoutMs?: number;
}

/** The worker role: one Chromium, WORKER_CONCURRENCY runs at once, plus the execution sweeper. */
export const workerRole = defineRole({ name: 'worker', start: startWorkerRole });
export const startWorker = workerRole.start;

async function startWorkerRole(options: WorkerOptions) {
  const { db, logger } = options;
  const log = logger.child({ role: 'worker' });
  const connection = createRedisConnection(options.redisUrl, 'worker');
  connection.on('error', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const queues = createQueues(connection, options.queuePrefix);
  // Private network closed: the browser goes through a proxy that checks each address it
  // connects to, and pages also get a per-request check that names what it blocked in the logs.
  const closed = options.allowPrivateNetwork === false;
  const egressProxy = closed ? await startEgressProxy() : null;
  const browserHost = createBrowserHost({
    executablePath: resolveChromiumPath({ explicitPath: options.chromiumPath }),
    extraArgs: options.extraBrowserArgs,
    egressProxyUrl: egressProxy?.url,
    logger: log,
  });
  const cancellations = await listenForCancellations(options.redisUrl, options.queuePrefix, log);

  const processor = createExecutionProcessor({
    db,
    queues,
    logger: log,
    browserHost,
    proxyPool: createProxyPool(options.proxyUrls),
    adBlocker: options.adBlocker ?? loadAdBlocker(),
    egressGuard: closed ? createEgressGuard() : undefined,
    cancellations,
    defaultTimeoutSeconds: options.defaultTimeoutSeconds,
  });

  const worker = consume(
    executionRun,
    {
      connection,
      prefix: options.queuePrefix,
      logger: log,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: 1,
    },
    processor,
  );
  worker.on('failed', (job, err) => {
    if (job && job.attemptsMade < (job.opts.attempts ?? 1) && !/stalled/i.test(err.message)) return;
    failAbandonedExecution(db, job, err.message).catch((e: unknown) =>
      log.error({ err: (e as Error).message }, 'could not fail abandoned execution'),
    );
  });

  const sweeper = startPeriodic(
    { name: 'execution sweep', intervalMs: options.sweepIntervalMs ?? 30_000, runAtStart: true, logger: log },
    (signal) =>
      sweepExecutions(db, queues, log, {
        pendingGraceMs: options.pendingGraceMs ?? 15_000,
        organizationId: options.sweepOrganizationId,
        signal,
      }),
  );
  // Profiles of browsers that died with an earlier, killed worker; ours is launched after this.
  removeOrphanedProfiles()
    .then((removed) => removed > 0 && log.info({ removed }, 'removed Chromium profiles left by killed workers'))
    .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not clean up old Chromium profiles'));
  // Warm the browser so the first execution does not pay for the launch.
  browserHost
    .getBrowser()
    .catch((err: unknown) => log.error({ err: (err as Error).message }, 'Chromium failed to launch'));
  log.info({ concurrency: options.concurrency }, 'worker started');

  return {
    async stop() {
      const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
      // Finish runs in flight; past the deadline they are handed back (their locks expire and
      // another worker re-claims them with a new attempt number). A sweep pass in flight winds
      // down alongside, under the same deadline (it waits on Redis, which may be away).
      const [drained] = await Promise.all([
        stopWorker(worker, drainTimeoutMs),
        settlesWithin(sweeper.stop(), drainTimeoutMs),
      ]);
      if (!drained) log.warn('runs still in flight at the drain deadline; handing them back');
      await browserHost.close();
      await egressProxy?.close();
      await cancellations.close();
      await queues.close();
      await closeRedis(connection);
    },
  };
}
