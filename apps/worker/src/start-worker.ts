import {
  CONFIG_DEFAULTS,
  defineRole,
  repeatedLog,
  settlesWithin,
  startPeriodic,
  type ArtifactUrlSettings,
  type Logger,
  type RedisSettings,
  type SecretBox,
} from '@botfleet/core';
import { pingDatabase, type ArtifactStore, type PrismaClient } from '@botfleet/db';
import { failAbandonedExecution, sweepExecutions } from '@botfleet/engine';
import { createOps, type Ops } from '@botfleet/ops';
import {
  consume,
  consumerReady,
  createQueues,
  closeRedis,
  createRedisConnection,
  executionRun,
  queueSlotReady,
  stopWorker,
} from '@botfleet/queue';
import {
  createBrowserHost,
  createEgressGuard,
  createProxyPool,
  loadAdBlocker,
  removeOrphanedProfiles,
  resolveChromiumPath,
  startEgressProxy,
  type AdBlocker,
  type OutputLimits,
} from '@botfleet/runner';
import { listenForCancellations } from './cancellations';
import { createExecutionRunProcessor } from './execution-run.processor';

export interface WorkerOptions {
  db: PrismaClient;
  /** How to reach Redis (REDIS_*, parsed once). */
  redis: RedisSettings;
  queuePrefix: string;
  logger: Logger;
  /** Executions run at once in this process (WORKER_CONCURRENCY). */
  concurrency: number;
  chromiumPath?: string;
  extraBrowserArgs?: string[];
  proxyUrls: string[];
  defaultTimeoutSeconds: number;
  /** MAX_RUNNING_EXECUTIONS_PER_ORG: an organization's runs going at once across the fleet (unset: no cap). */
  maxRunningPerOrganization?: number;
  /** BROWSER_RECYCLE_AFTER_RUNS: Chromium is replaced between runs after this many (default 500). */
  browserRecycleAfterRuns?: number;
  /** BROWSER_MAX_RSS_MB: Chromium is replaced between runs once its memory passes this (unset: not checked). */
  browserMaxRssMb?: number;
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
  /** Signs the screenshot URL sent in `execution.failed` events (the API's key, base URL and TTL). */
  artifactUrls?: ArtifactUrlSettings;
  /** The process's metrics and readiness checks (the launcher's); a private set when omitted. */
  ops?: Ops;
  /** EXECUTION_MAX_INFRA_RETRIES: new attempts for a run whose worker died or browser failed (default 3). */
  maxInfraRetries?: number;
  /** MAX_STEP_OUTPUT_BYTES and MAX_EXECUTION_OUTPUT_BYTES; the documented defaults when omitted. */
  outputLimits?: OutputLimits;
  /** SECRETS_KEY's box: opens credentials and profile states (runs that use one fail without it). */
  secretBox?: SecretBox;
  /** ARTIFACT_STORE's store (the launcher's, closed by it): where runs put artifacts' content. PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
}

/** Runs stopped at the drain deadline get this long to go back to the queue. */
const HAND_BACK_TIMEOUT_MS = 5_000;

/** The worker role: one Chromium, WORKER_CONCURRENCY runs at once, plus the execution sweeper. */
export const workerRole = defineRole({ name: 'worker', start: startWorkerRole });
export const startWorker = workerRole.start;

async function startWorkerRole(options: WorkerOptions) {
  const { db, logger } = options;
  const ops = options.ops ?? createOps();
  const log = logger.child({ role: 'worker' });
  const connection = createRedisConnection(options.redis, 'worker');
  connection.on('error', (err: Error) => repeatedLog.warn(log, { err: err.message }, 'redis connection error'));
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
    onRestart: (reason) => ops.metrics.browserRestarts.inc({ reason }),
    recycleAfterRuns: options.browserRecycleAfterRuns ?? CONFIG_DEFAULTS.BROWSER_RECYCLE_AFTER_RUNS,
    maxRssMb: options.browserMaxRssMb,
  });
  const cancellations = await listenForCancellations(options.redis, options.queuePrefix, log);

  const shutdown = new AbortController();
  const maxInfraRetries = options.maxInfraRetries ?? CONFIG_DEFAULTS.EXECUTION_MAX_INFRA_RETRIES;
  const processor = createExecutionRunProcessor({
    db,
    queues,
    logger: log,
    browserHost,
    proxyPool: createProxyPool(options.proxyUrls),
    adBlocker: options.adBlocker ?? loadAdBlocker(),
    egressGuard: closed ? createEgressGuard() : undefined,
    cancellations,
    defaultTimeoutSeconds: options.defaultTimeoutSeconds,
    maxRunningPerOrganization: options.maxRunningPerOrganization,
    artifactUrls: options.artifactUrls,
    metrics: ops.metrics,
    shutdownSignal: shutdown.signal,
    maxInfraRetries,
    outputLimits: options.outputLimits,
    secretBox: options.secretBox,
    artifactStore: options.artifactStore,
  });

  const worker = consume(
    executionRun,
    {
      connection,
      prefix: options.queuePrefix,
      logger: log,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs ?? CONFIG_DEFAULTS.EXECUTION_LOCK_SECONDS * 1000,
      stalledInterval: options.stalledIntervalMs ?? CONFIG_DEFAULTS.STALLED_CHECK_SECONDS * 1000,
      // A stalled job (its worker died) goes back to the queue and its next claim counts an
      // infrastructure retry on the row (claimExecution). BullMQ's own limit sits one above, so
      // the row's count always decides, and the run fails with infrastructure_failure rather than
      // BullMQ's "job stalled more than allowable limit".
      maxStalledCount: maxInfraRetries + 1,
    },
    processor,
  );
  worker.on('failed', (job, err) => {
    if (job && job.attemptsMade < (job.opts.attempts ?? 1) && !/stalled/i.test(err.message)) return;
    failAbandonedExecution({ db, queues, logger: log }, job, err.message).catch((e: unknown) =>
      log.error({ err: (e as Error).message }, 'could not fail abandoned execution'),
    );
  });

  const sweeper = startPeriodic(
    {
      name: 'execution sweep',
      intervalMs: options.sweepIntervalMs ?? CONFIG_DEFAULTS.SWEEP_INTERVAL_SECONDS * 1000,
      runAtStart: true,
      logger: log,
    },
    (signal) =>
      sweepExecutions(
        { db, queues, logger: log },
        {
          pendingGraceMs: options.pendingGraceMs ?? 15_000,
          organizationId: options.sweepOrganizationId,
          signal,
        },
      ),
  );
  // Profiles of browsers that died with an earlier, killed worker; ours is launched after this.
  removeOrphanedProfiles()
    .then((removed) => removed > 0 && log.info({ removed }, 'removed Chromium profiles left by killed workers'))
    .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'could not clean up old Chromium profiles'));
  // Warm the browser so the first execution does not pay for the launch.
  browserHost
    .getBrowser()
    .catch((err: unknown) => log.error({ err: (err as Error).message }, 'Chromium failed to launch'));
  // Ready while it can run executions: database, Redis, and a browser (relaunched on demand, so a
  // crashed Chromium that cannot come back makes the worker unready rather than failing runs).
  const unready = [
    ops.readiness.add('database', () => pingDatabase(db)),
    ops.readiness.add('redis', () =>
      Promise.all([queueSlotReady(connection, options.queuePrefix, executionRun.queue), consumerReady(worker)]),
    ),
    ops.readiness.add('browser', () => browserHost.getBrowser()),
  ];
  const unwatch = ops.watchQueues([queues.get(executionRun.queue)]);
  log.info({ concurrency: options.concurrency }, 'worker started');

  return {
    async stop() {
      for (const remove of unready) remove();
      const drainTimeoutMs = options.drainTimeoutMs ?? 30_000;
      // Finish runs in flight; at the deadline the ones still going are stopped and their jobs
      // moved back to the queue, where another worker claims them with a new attempt number
      // (a job that cannot be moved in time is recovered when its lock expires). A sweep pass
      // in flight winds down alongside, under the same deadline (it waits on Redis, which may be away).
      const [drained] = await Promise.all([
        stopWorker(worker, drainTimeoutMs, {
          onDrainDeadline: () => {
            log.warn('runs still in flight at the drain deadline; handing them back to the queue');
            shutdown.abort();
          },
          handBackTimeoutMs: HAND_BACK_TIMEOUT_MS,
        }),
        settlesWithin(sweeper.stop(), drainTimeoutMs),
      ]);
      if (!drained) log.warn('runs could not be handed back in time; they return when their locks expire');
      unwatch();
      await browserHost.close();
      await egressProxy?.close();
      await cancellations.close();
      await queues.close();
      await closeRedis(connection);
    },
  };
}
