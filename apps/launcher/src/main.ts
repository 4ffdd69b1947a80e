import { apiRole } from '@botfleet/api';
import { createLogger, createSecretBox, type Role } from '@botfleet/core';
import { createPrismaClient } from '@botfleet/db';
import { deliveryRole } from '@botfleet/delivery';
import { schedulerRole } from '@botfleet/scheduler';
import { workerRole } from '@botfleet/worker';
import { hkdfSync } from 'node:crypto';
import { resolve } from 'node:path';
import { loadEnv } from './env';
import { prepareDatabase } from './prepare-database';
import { resolveSecretsKey } from './secrets-key';
import { createShutdown } from './shutdown';

/**
 * Starts the roles named in ROLES (all by default) in this process. Each started role is one
 * shutdown step; steps run in reverse, so the api, started last, stops taking requests first.
 */
async function main(): Promise<void> {
  const env = loadEnv();
  const logger = createLogger({ level: env.LOG_LEVEL });
  const roles = new Set<Role>(env.ROLES);
  // Longer than the worker's 30 s drain plus closing Chromium, so no step is cut short.
  const shutdown = createShutdown(logger, 60_000);
  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    void shutdown.run().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));

  await prepareDatabase(env.DATABASE_URL, logger);
  const db = createPrismaClient(env.DATABASE_URL);
  shutdown.register('database', () => db.$disconnect());
  const secretsKey = resolveSecretsKey(env.SECRETS_KEY, resolve(env.DATA_DIR), logger);
  const secretBox = createSecretBox(secretsKey);
  const common = { db, redisUrl: env.REDIS_URL, queuePrefix: env.QUEUE_PREFIX, logger };
  logger.info(
    { allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK, nodeEnv: env.NODE_ENV },
    env.ALLOW_PRIVATE_NETWORK
      ? 'private network OPEN: webhooks, logins and bots may reach loopback and private addresses (set ALLOW_PRIVATE_NETWORK=false in production)'
      : 'private network closed: webhooks, logins and bots reach public addresses only',
  );

  if (roles.has('worker')) {
    const worker = await workerRole.start({
      ...common,
      concurrency: env.WORKER_CONCURRENCY,
      chromiumPath: env.CHROMIUM_PATH,
      proxyUrls: env.PROXY_URLS,
      defaultTimeoutSeconds: env.DEFAULT_TIMEOUT_SECONDS,
      allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK,
      lockDurationMs: env.EXECUTION_LOCK_SECONDS * 1000,
      stalledIntervalMs: env.STALLED_CHECK_SECONDS * 1000,
      sweepIntervalMs: env.SWEEP_INTERVAL_SECONDS * 1000,
    });
    shutdown.registerRole(worker);
  }

  if (roles.has('delivery')) {
    const delivery = await deliveryRole.start({
      ...common,
      secretBox,
      concurrency: env.DELIVERY_CONCURRENCY,
      allowPrivateNetwork: env.ALLOW_PRIVATE_NETWORK,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: env.WEBHOOK_RETRY_DELAYS_MS,
    });
    shutdown.registerRole(delivery);
  }

  if (roles.has('scheduler')) {
    const scheduler = await schedulerRole.start({ ...common, executionRetentionDays: env.EXECUTION_RETENTION_DAYS });
    shutdown.registerRole(scheduler);
  }

  if (roles.has('api')) {
    const api = await apiRole.start({
      ...common,
      secretBox,
      port: env.PORT,
      settings: {
        bodyLimitBytes: env.BODY_LIMIT_BYTES,
        requestTimeoutMs: env.REQUEST_TIMEOUT_SECONDS * 1000,
        publicBaseUrl: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
        minScheduleIntervalSeconds: env.MIN_SCHEDULE_INTERVAL_SECONDS,
        screenshotUrlTtlSeconds: env.SCREENSHOT_URL_TTL_SECONDS,
        rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
        urlSigningKey: Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'botfleet artifact urls', 32)),
      },
    });
    // Registered last so it stops first: no new requests while the workers drain.
    shutdown.registerRole(api);
    logger.info({ port: api.port }, 'API listening');
    process.stdout.write(`botfleet API listening on http://localhost:${api.port} (roles: ${[...roles].join(', ')})\n`);
  } else {
    process.stdout.write(`botfleet started (roles: ${[...roles].join(', ')})\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`botfleet failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
