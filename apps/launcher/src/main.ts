import { createApp } from '@botfleet/api';
import { createLogger, createSecretBox, type Role } from '@botfleet/core';
import { createPrismaClient } from '@botfleet/db';
import { createQueues, createRedisConnection } from '@botfleet/queue';
import { hkdfSync } from 'node:crypto';
import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { loadEnv } from './env';
import { prepareDatabase } from './prepare-database';
import { resolveSecretsKey } from './secrets-key';
import { createShutdown } from './shutdown';

/** Starts the roles named in ROLES (all by default) in this process. */
async function main(): Promise<void> {
  const env = loadEnv();
  const logger = createLogger({ level: env.LOG_LEVEL });
  const roles = new Set<Role>(env.ROLES);
  const shutdown = createShutdown(logger);

  await prepareDatabase(env.DATABASE_URL, logger);
  const db = createPrismaClient(env.DATABASE_URL);
  shutdown.register('database', () => db.$disconnect());
  const secretsKey = resolveSecretsKey(env.SECRETS_KEY, resolve(env.DATA_DIR), logger);
  const secretBox = createSecretBox(secretsKey);
  const urlSigningKey = Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), 'botfleet artifact urls', 32));
  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`;

  if (roles.has('api')) {
    const redis = createRedisConnection(env.REDIS_URL, 'producer');
    redis.on('error', (err) => logger.warn({ err: err.message }, 'redis (api) connection error'));
    const queues = createQueues(redis, env.QUEUE_PREFIX);
    shutdown.register('api redis', async () => {
      await queues.close();
      redis.disconnect();
    });
    const app = createApp({
      db,
      redis,
      queues,
      logger,
      secretBox,
      settings: {
        bodyLimitBytes: env.BODY_LIMIT_BYTES,
        publicBaseUrl,
        minScheduleIntervalSeconds: env.MIN_SCHEDULE_INTERVAL_SECONDS,
        screenshotUrlTtlSeconds: env.SCREENSHOT_URL_TTL_SECONDS,
        urlSigningKey,
      },
    });
    const server: Server = await new Promise((ready) => {
      const s = app.listen(env.PORT, () => ready(s));
    });
    shutdown.register('http server', () => new Promise((done) => server.close(() => done())));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : env.PORT;
    logger.info({ port, publicBaseUrl }, 'API listening');
    process.stdout.write(`botfleet API listening on http://localhost:${port} (roles: ${[...roles].join(', ')})\n`);
  }

  const stop = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    void shutdown.run().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`botfleet failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
