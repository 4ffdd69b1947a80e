import { defineRole, repeatedLog, type Logger, type RedisSettings, type SecretBox } from '@botfleet/core';
import type { ArtifactStore, PrismaClient } from '@botfleet/db';
import type { Ops } from '@botfleet/ops';
import { createQueues, closeRedis, createRedisConnection, jobCatalog } from '@botfleet/queue';
import { createServer, type Server } from 'node:http';
import { createApp } from './app';
import type { ApiSettings } from './deps';
import { answerClientError } from './http/client-error';
import { streamSlotLimitsOf } from './live/process-stream-cap';
import { startLiveEvents } from './live/start-live-events';
import { createStreamSlots } from './live/stream-slots';

/** Headers must be complete within this; a client trickling them in is cut off with 408. */
const HEADERS_TIMEOUT_MS = 10_000;

export interface StartApiOptions {
  db: PrismaClient;
  /** How to reach Redis (REDIS_*, parsed once). */
  redis: RedisSettings;
  queuePrefix: string;
  logger: Logger;
  secretBox: SecretBox;
  port: number;
  settings: ApiSettings;
  /** ARTIFACT_STORE's store (the launcher's, closed by it); PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
  /** The process's metrics and readiness checks (the launcher's); a private set when omitted. */
  ops?: Ops;
}

/**
 * The API role: an HTTP server on `port`, started once it listens. The server bounds how long a
 * client may take (headers, whole request, idle keep-alive) so slow clients cannot pin sockets.
 * Its handle also carries the `port` it listens on (port 0 picks one) and the `server`.
 */
export const apiRole = defineRole({ name: 'api', start: startApiRole });
export const startApi = apiRole.start;
export type ApiHandle = Awaited<ReturnType<typeof startApi>>;

async function startApiRole(options: StartApiOptions) {
  const redis = createRedisConnection(options.redis, 'producer');
  redis.on('error', (err: Error) =>
    repeatedLog.warn(options.logger, { err: err.message }, 'redis (api) connection error'),
  );
  const queues = createQueues(redis, options.queuePrefix);
  const live = startLiveEvents({
    db: options.db,
    logger: options.logger,
    settings: options.settings,
    redis: options.redis,
    queuePrefix: options.queuePrefix,
  });
  const streamSlots = createStreamSlots({
    redis,
    prefix: options.queuePrefix,
    limits: streamSlotLimitsOf(options.settings),
    logger: options.logger,
  });
  const app = createApp({
    db: options.db,
    redis,
    queues,
    liveEvents: live.live,
    streamSlots,
    logger: options.logger,
    secretBox: options.secretBox,
    settings: options.settings,
    artifactStore: options.artifactStore,
    ops: options.ops,
  });
  // The API produces into every queue: it reports them all, so a scaled-to-zero consumer pool
  // still has a depth to scale on.
  const unwatch = options.ops?.watchQueues(
    [...new Set(jobCatalog.map((job) => job.queue))].map((name) => queues.get(name)),
  );
  const { requestTimeoutMs } = options.settings;
  const server: Server = createServer(
    {
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
      // A backstop past the body deadline (which answers 408 with the envelope itself).
      requestTimeout: requestTimeoutMs + 5_000,
      keepAliveTimeout: 5_000,
      // How often Node checks the two limits above (default 30 s would let them overrun).
      connectionsCheckingInterval: 1_000,
    },
    app,
  );
  server.on('clientError', answerClientError);
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port, () => ready());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    server,
    async stop() {
      // Stop accepting connections; resolves once the open ones have ended (idle ones are closed).
      const closed = new Promise<void>((done) => server.close(() => done()));
      // Event streams never end by themselves: end them now (their clients reconnect elsewhere
      // with their Last-Event-ID), or they would hold the close until the drain's deadline.
      await live.stop();
      // Each ended stream released its slot; this waits for those releases (and any left) to reach Redis.
      await streamSlots.close();
      // Their keep-alive sockets are idle now; close() only closed those idle when it was called.
      server.closeIdleConnections();
      await closed;
      unwatch?.();
      await queues.close();
      await closeRedis(redis);
    },
  };
}
