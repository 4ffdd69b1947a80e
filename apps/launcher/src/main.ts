import { apiRole } from '@botfleet/api';
import { createSecretBox, type Role, type RoleHandle } from '@botfleet/core';
import { createArtifactStore } from '@botfleet/artifacts';
import { deliveryRole } from '@botfleet/delivery';
import { createLogger } from '@botfleet/io';
import { createOps, startOpsServer } from '@botfleet/ops';
import { schedulerRole } from '@botfleet/scheduler';
import { workerRole } from '@botfleet/worker';
import { hkdfSync } from 'node:crypto';
import { resolve } from 'node:path';
import { answerPrimary, apiProcessEnv, createApiProcesses, isApiProcess } from './api-processes';
import { loadEnv } from './env';
import { openDatabase, prepareDatabase } from './prepare-database';
import { resolveSecretsKey } from './secrets-key';
import { createShutdown } from './shutdown';
import { shutdownBudget } from './shutdown-budget';
import { onStopSignals, signalExitCode } from './stop-signals';

/**
 * Starts the roles named in ROLES (all by default) in this process, with one ops server on
 * OPS_PORT for all of them. On SIGTERM, SIGINT or SIGHUP every role stops taking work at once
 * and drains in parallel; then the database connection closes, then the ops server. The whole
 * shutdown fits in SHUTDOWN_GRACE_SECONDS. Copies of the signal count once (stop-signals.ts).
 * With API_PROCESSES > 1 the api role runs in that many forked processes sharing PORT, and this
 * one (the primary) runs the other roles and the ops server for all (api-processes.ts).
 */
async function main(): Promise<void> {
  const primaryEnv = loadEnv();
  // An API process forked by a primary with API_PROCESSES > 1 (api-processes.ts) runs from the
  // primary's settings, narrowed to the api role.
  const env = isApiProcess
    ? apiProcessEnv(primaryEnv, shutdownBudget(primaryEnv.SHUTDOWN_GRACE_SECONDS).drainMs)
    : primaryEnv;
  const logger = createLogger({ level: env.LOG_LEVEL });
  const roles = new Set<Role>(env.ROLES);
  const budget = shutdownBudget(env.SHUTDOWN_GRACE_SECONDS);
  const shutdown = createShutdown(logger, budget.graceMs);
  const started: RoleHandle[] = [];
  // Ready only between start-up and shutdown: a starting process has nothing to offer yet, and a
  // draining one must get no new traffic.
  let phase: 'starting' | 'running' | 'stopping' = 'starting';
  const ops = createOps();
  ops.readiness.add('started', async () => {
    if (phase !== 'running') throw new Error(`process is ${phase}`);
  });
  const stop = (signal: string) => {
    // An API process hears a stop both from its primary and, sent to the whole group, directly.
    if (phase === 'stopping') return;
    logger.info({ signal, graceSeconds: env.SHUTDOWN_GRACE_SECONDS }, 'shutting down');
    phase = 'stopping';
    const deadline = setTimeout(() => {
      logger.error('shutdown did not finish within SHUTDOWN_GRACE_SECONDS; exiting anyway');
      process.exit(1);
    }, budget.graceMs);
    deadline.unref();
    void shutdown.run().then(() => process.exit(0));
  };
  onStopSignals({
    stop,
    repeated: (signal) => logger.debug({ signal }, 'stop signal repeated: counted once, the drain goes on'),
    insist: (signal) => {
      logger.warn(
        { signal },
        'second stop signal: exiting at once; runs in flight return to the queue once their lock expires',
      );
      process.exit(signalExitCode(signal));
    },
  });

  if (isApiProcess) answerPrimary({ ops, logger, drain: () => stop('drain (asked by the primary)') });
  const apiProcesses =
    roles.has('api') && env.API_PROCESSES > 1 ? createApiProcesses({ count: env.API_PROCESSES, ops, logger }) : null;

  // Up before anything slow (migrations, Chromium): liveness answers while the process starts.
  if (env.OPS_PORT !== 0) {
    const opsServer = await startOpsServer({ port: env.OPS_PORT, ops, logger, readMetrics: apiProcesses?.readMetrics });
    shutdown.register('ops server', () => opsServer.close());
    process.stdout.write(`botfleet ops listening on http://localhost:${opsServer.port}\n`);
  }

  // An API process's primary prepared the database before forking it.
  // With MIGRATE_ON_START=false this waits, unready, until the migration job has run.
  if (!isApiProcess) await prepareDatabase(env, logger, { migrate: env.MIGRATE_ON_START, readiness: ops.readiness });
  const db = openDatabase(env, [...roles].join(','));
  shutdown.register('database', () => db.$disconnect());
  const secretsKey = resolveSecretsKey(env.SECRETS_KEY, resolve(env.DATA_DIR), logger);
  const secretBox = createSecretBox(secretsKey);
  // One store per process, shared by its roles; it closes after them (handlers run in reverse order).
  const artifactStore = createArtifactStore(env.artifactStore);
  shutdown.register('artifact store', () => artifactStore.close());
  // Roles stop together, each bounded by its own drain deadline; the database closes after them.
  shutdown.register('roles', async () => {
    await Promise.all(started.map((role) => role.stop()));
  });
  // Every role drains for the same share of SHUTDOWN_GRACE_SECONDS (shutdown-budget.ts).
  const common = { db, redis: env.redis, queuePrefix: env.QUEUE_PREFIX, logger, ops, drainTimeoutMs: budget.drainMs };
  // The API verifies artifact URLs with these; the worker signs the screenshot of execution.failed events.
  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;
  const urlSigningKey = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'botfleet artifact urls', 32));
  logger.info(
    { allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK, nodeEnv: env.NODE_ENV },
    env.ALLOW_PRIVATE_NETWORK
      ? 'private network OPEN: webhooks, logins and bots may reach loopback and private addresses (set ALLOW_PRIVATE_NETWORK=false in production)'
      : 'private network closed: webhooks, logins and bots reach public addresses only',
  );

  if (roles.has('worker')) {
    const worker = await workerRole.start({
      ...common,
      secretBox,
      artifactStore,
      concurrency: env.WORKER_CONCURRENCY,
      chromiumPath: env.CHROMIUM_PATH,
      proxyUrls: env.PROXY_URLS,
      defaultTimeoutSeconds: env.DEFAULT_TIMEOUT_SECONDS,
      maxRunningExecutionsPerOrg: env.MAX_RUNNING_EXECUTIONS_PER_ORG,
      browserRecycleAfterRuns: env.BROWSER_RECYCLE_AFTER_RUNS,
      browserMaxRssMb: env.BROWSER_MAX_RSS_MB,
      allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK,
      lockDurationMs: env.EXECUTION_LOCK_SECONDS * 1000,
      stalledIntervalMs: env.STALLED_CHECK_SECONDS * 1000,
      sweepIntervalMs: env.SWEEP_INTERVAL_SECONDS * 1000,
      maxInfraRetries: env.EXECUTION_MAX_INFRA_RETRIES,
      outputLimits: { maxStepBytes: env.MAX_STEP_OUTPUT_BYTES, maxExecutionBytes: env.MAX_EXECUTION_OUTPUT_BYTES },
      artifactUrls: { signingKey: urlSigningKey, baseUrl: publicBaseUrl, ttlSeconds: env.SCREENSHOT_URL_TTL_SECONDS },
    });
    started.push(worker);
  }

  if (roles.has('delivery')) {
    const delivery = await deliveryRole.start({
      ...common,
      secretBox,
      concurrency: env.DELIVERY_CONCURRENCY,
      allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK,
      webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: env.WEBHOOK_RETRY_DELAYS_MS,
      disableAfterMs: env.WEBHOOK_DISABLE_AFTER_DAYS * 86_400_000,
      sweepIntervalMs: env.SWEEP_INTERVAL_SECONDS * 1000,
    });
    started.push(delivery);
  }

  if (roles.has('scheduler')) {
    const scheduler = await schedulerRole.start({
      ...common,
      artifactStore,
      executionRetentionDays: env.EXECUTION_RETENTION_DAYS,
      maxPendingExecutionsPerOrg: env.MAX_PENDING_EXECUTIONS_PER_ORG,
      // Ticks are short and idempotent: the scheduler never waits longer than its own drain time
      // (docs/configuration.md).
      drainTimeoutMs: Math.min(env.fixed.drainMs.scheduler, budget.drainMs),
    });
    started.push(scheduler);
  }

  if (apiProcesses) {
    const api = await apiProcesses.start();
    started.push(api);
    process.stdout.write(
      `botfleet API listening on http://localhost:${api.port} (roles: ${[...roles].join(', ')}; ${env.API_PROCESSES} API processes)\n`,
    );
  } else if (roles.has('api')) {
    const api = await apiRole.start({
      ...common,
      secretBox,
      artifactStore,
      port: env.PORT,
      settings: {
        bodyLimitBytes: env.BODY_LIMIT_BYTES,
        requestTimeoutMs: env.REQUEST_TIMEOUT_SECONDS * 1000,
        publicBaseUrl,
        minScheduleIntervalSeconds: env.MIN_SCHEDULE_INTERVAL_SECONDS,
        maxPendingExecutionsPerOrg: env.MAX_PENDING_EXECUTIONS_PER_ORG,
        screenshotUrlTtlSeconds: env.SCREENSHOT_URL_TTL_SECONDS,
        rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
        urlSigningKey,
        allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK,
        webhookTimeoutMs: env.WEBHOOK_TIMEOUT_MS,
        opsAdminToken: env.OPS_ADMIN_TOKEN,
        sseHeartbeatSeconds: env.SSE_HEARTBEAT_SECONDS,
        maxStreamsPerOrg: env.MAX_STREAMS_PER_ORG,
        maxStreamsPerKey: env.MAX_STREAMS_PER_KEY,
        maxStreamsPerProcess: env.MAX_STREAMS_PER_PROCESS,
        databasePoolSize: env.DATABASE_POOL_SIZE,
      },
    });
    started.push(api);
    logger.info({ port: api.port }, 'API listening');
    // The primary says it once for all its API processes.
    if (!isApiProcess) {
      process.stdout.write(
        `botfleet API listening on http://localhost:${api.port} (roles: ${[...roles].join(', ')})\n`,
      );
    }
  } else {
    process.stdout.write(`botfleet started (roles: ${[...roles].join(', ')})\n`);
  }
  // A signal during start-up already began stopping; do not report ready then.
  if (phase === 'starting') phase = 'running';
}

main().catch((err: unknown) => {
  process.stderr.write(`botfleet failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
