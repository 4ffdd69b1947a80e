import { CONFIG_DEFAULTS, type ArtifactUrlSettings, type SecretBox } from '@botfleet/core';
import type { ArtifactStore } from '@botfleet/artifacts';
import { failAbandonedExecution, sweepExecutions } from '@botfleet/engine';
import { defineFleetRole, type FleetRoleOptions } from '@botfleet/ops';
import { executionRun } from '@botfleet/queue';
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

export interface WorkerOptions extends FleetRoleOptions {
  /** Executions run at once in this process (WORKER_CONCURRENCY). */
  concurrency: number;
  chromiumPath?: string;
  extraBrowserArgs?: string[];
  proxyUrls: string[];
  defaultTimeoutSeconds: number;
  /** MAX_RUNNING_EXECUTIONS_PER_ORG: an organization's runs going at once across the fleet (unset: no cap). */
  maxRunningExecutionsPerOrg?: number;
  /** BROWSER_RECYCLE_AFTER_RUNS: Chromium is replaced between runs after this many. */
  browserRecycleAfterRuns?: number;
  /** BROWSER_MAX_RSS_MB: Chromium is replaced between runs once its memory passes this (unset: not checked). */
  browserMaxRssMb?: number;
  adBlocker?: AdBlocker;
  /** ALLOW_PRIVATE_NETWORK: false refuses bots' requests to private, loopback and link-local addresses. */
  allowPrivateNetwork?: boolean;
  /** EXECUTION_LOCK_SECONDS: how long a job's lock lasts without renewal; a dead worker's job returns after this. */
  lockDurationMs?: number;
  /** STALLED_CHECK_SECONDS: how often BullMQ looks for jobs whose lock expired. */
  stalledIntervalMs?: number;
  /** SWEEP_INTERVAL_SECONDS: how often the execution sweep runs. */
  sweepIntervalMs?: number;
  /** A pending execution younger than this may still be on its way into Redis: the sweep leaves it. */
  pendingGraceMs?: number;
  /**
   * Sweep only this organization's executions. Tests and benchmarks share one database across
   * queue prefixes: unscoped, one worker's sweep would fail another prefix's running rows.
   */
  sweepOrganizationId?: string;
  /** Signs the screenshot URL sent in `execution.failed` events (the API's key, base URL and TTL). */
  artifactUrls?: ArtifactUrlSettings;
  /** EXECUTION_MAX_INFRA_RETRIES: new attempts for a run whose worker died or browser failed. */
  maxInfraRetries?: number;
  /** MAX_STEP_OUTPUT_BYTES and MAX_EXECUTION_OUTPUT_BYTES; the documented defaults when omitted. */
  outputLimits?: OutputLimits;
  /** SECRETS_KEY's box: opens credentials and profile states (runs that use one fail without it). */
  secretBox?: SecretBox;
  /** ARTIFACT_STORE's store (the launcher's, closed by it): where runs put artifacts' content. PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
}

/**
 * The worker role: one Chromium, WORKER_CONCURRENCY runs at once, plus the execution sweeper. Its
 * queue connection waits for Redis, as its consumer's does. At the drain deadline, runs still
 * going are stopped and their jobs moved back to the queue, where another worker claims them with
 * a new attempt number (a job that cannot be moved in time is recovered when its lock expires).
 */
export const workerRole = defineFleetRole({
  name: 'worker',
  queueConnection: 'worker',
  async start({ logger, ops, queues, consume, every, ready }, options: WorkerOptions) {
    const { db } = options;
    // Private network closed: the browser goes through a proxy that checks each address it
    // connects to, and pages also get a per-request check that names what it blocked in the logs.
    const closed = options.allowPrivateNetwork === false;
    const egressProxy = closed ? await startEgressProxy() : null;
    const browserHost = createBrowserHost({
      executablePath: resolveChromiumPath({ explicitPath: options.chromiumPath }),
      extraArgs: options.extraBrowserArgs,
      egressProxyUrl: egressProxy?.url,
      logger,
      onRestart: (reason) => ops.metrics.browserRestarts.inc({ reason }),
      recycleAfterRuns: options.browserRecycleAfterRuns ?? CONFIG_DEFAULTS.BROWSER_RECYCLE_AFTER_RUNS,
      maxRssMb: options.browserMaxRssMb,
    });
    const cancellations = await listenForCancellations(options.redis, options.queuePrefix, logger);

    const shutdown = new AbortController();
    const maxInfraRetries = options.maxInfraRetries ?? CONFIG_DEFAULTS.EXECUTION_MAX_INFRA_RETRIES;
    const processor = createExecutionRunProcessor({
      db,
      queues,
      logger,
      browserHost,
      proxyPool: createProxyPool(options.proxyUrls),
      adBlocker: options.adBlocker ?? loadAdBlocker(),
      egressGuard: closed ? createEgressGuard() : undefined,
      cancellations,
      defaultTimeoutSeconds: options.defaultTimeoutSeconds,
      maxRunningExecutionsPerOrg: options.maxRunningExecutionsPerOrg,
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
        concurrency: options.concurrency,
        lockDuration: options.lockDurationMs ?? CONFIG_DEFAULTS.EXECUTION_LOCK_SECONDS * 1000,
        stalledInterval: options.stalledIntervalMs ?? CONFIG_DEFAULTS.STALLED_CHECK_SECONDS * 1000,
        // A stalled job (its worker died) goes back to the queue and its next claim counts an
        // infrastructure retry on the row (claimExecution). BullMQ's own limit sits one above, so
        // the row's count always decides, and the run fails with infrastructure_failure rather than
        // BullMQ's "job stalled more than allowable limit".
        maxStalledCount: maxInfraRetries + 1,
        onDrainDeadline: () => {
          logger.warn('runs still in flight at the drain deadline; handing them back to the queue');
          shutdown.abort();
        },
        abandonedMessage: 'runs could not be handed back in time; they return when their locks expire',
      },
      processor,
    );
    worker.on('failed', (job, err) => {
      if (job && job.attemptsMade < (job.opts.attempts ?? 1) && !/stalled/i.test(err.message)) return;
      failAbandonedExecution({ db, queues, logger }, job, err.message).catch((e: unknown) =>
        logger.error({ err: (e as Error).message }, 'could not fail abandoned execution'),
      );
    });

    every(
      {
        name: 'execution sweep',
        intervalMs: options.sweepIntervalMs ?? CONFIG_DEFAULTS.SWEEP_INTERVAL_SECONDS * 1000,
        runAtStart: true,
      },
      (signal) =>
        sweepExecutions(
          { db, queues, logger },
          {
            pendingGraceMs: options.pendingGraceMs ?? CONFIG_DEFAULTS.fixed.executionPendingGraceMs,
            organizationId: options.sweepOrganizationId,
            signal,
          },
        ),
    );
    // Profiles of browsers that died with an earlier, killed worker; ours is launched after this.
    removeOrphanedProfiles()
      .then((removed) => removed > 0 && logger.info({ removed }, 'removed Chromium profiles left by killed workers'))
      .catch((err: unknown) =>
        logger.warn({ err: (err as Error).message }, 'could not clean up old Chromium profiles'),
      );
    // Warm the browser so the first execution does not pay for the launch.
    browserHost
      .getBrowser()
      .catch((err: unknown) => logger.error({ err: (err as Error).message }, 'Chromium failed to launch'));
    // Ready while it can run executions: besides the database and Redis, a browser (relaunched on
    // demand, so a crashed Chromium that cannot come back makes the worker unready rather than
    // failing runs).
    ready('browser', () => browserHost.getBrowser());

    return {
      startedLog: { concurrency: options.concurrency },
      async close() {
        await browserHost.close();
        await egressProxy?.close();
        await cancellations.close();
      },
    };
  },
});
export const startWorker = workerRole.start;
