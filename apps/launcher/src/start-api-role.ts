import { createApp, type ApiSettings } from '@botfleet/api';
import type { Logger, SecretBox } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import { createQueues, createRedisConnection } from '@botfleet/queue';
import type { Server } from 'node:http';

/** The API role: an HTTP server on `port`. Resolves once it listens. */
export async function startApiRole(options: {
  db: PrismaClient;
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  secretBox: SecretBox;
  port: number;
  settings: ApiSettings;
}) {
  const redis = createRedisConnection(options.redisUrl, 'producer');
  redis.on('error', (err) => options.logger.warn({ err: err.message }, 'redis (api) connection error'));
  const queues = createQueues(redis, options.queuePrefix);
  const app = createApp({ db: options.db, redis, queues, logger: options.logger, secretBox: options.secretBox, settings: options.settings });
  const server: Server = await new Promise((ready, fail) => {
    const s = app.listen(options.port, () => ready(s));
    s.once('error', fail);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    async stop() {
      await new Promise<void>((done) => server.close(() => done()));
      await queues.close();
      redis.disconnect();
    },
  };
}
