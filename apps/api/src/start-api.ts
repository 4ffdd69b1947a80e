import type { SecretBox } from '@botfleet/core';
import type { ArtifactStore } from '@botfleet/artifacts';
import { defineFleetRole, type FleetRoleOptions } from '@botfleet/ops';
import { jobCatalog } from '@botfleet/queue';
import { createApp } from './app';
import type { ApiSettings } from './deps';
import { listenHttp } from './http/http-server';
import { streamSlotLimitsOf } from './live/process-stream-cap';
import { startLiveEvents } from './live/start-live-events';
import { createStreamSlots } from './live/stream-slots';

export interface StartApiOptions extends FleetRoleOptions {
  secretBox: SecretBox;
  port: number;
  settings: ApiSettings;
  /** ARTIFACT_STORE's store (the launcher's, closed by it); PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
}

/**
 * The API role: an HTTP server on `port` (http/http-server.ts), started once it listens, in place
 * of a consumer. Its queue connection is a producer's (fails fast): a request must not hang on a
 * Redis that is away. It produces into every queue, so it reports them all: a scaled-to-zero
 * consumer pool still has a depth to scale on. Its readiness checks are its app's (the health
 * router), as /readyz is served on its port too. Its handle also carries the `port` it listens on
 * (port 0 picks one) and the `server`.
 */
export const apiRole = defineFleetRole({
  name: 'api',
  queueConnection: 'producer',
  reportedQueues: jobCatalog.map((job) => job.queue),
  async start({ logger, ops, queues, redis }, options: StartApiOptions) {
    const live = startLiveEvents({
      db: options.db,
      logger,
      settings: options.settings,
      redis: options.redis,
      queuePrefix: options.queuePrefix,
    });
    const streamSlots = createStreamSlots({
      redis,
      prefix: options.queuePrefix,
      limits: streamSlotLimitsOf(options.settings),
      logger,
    });
    const app = createApp({
      db: options.db,
      redis,
      queues,
      liveEvents: live.live,
      streamSlots,
      logger,
      secretBox: options.secretBox,
      settings: options.settings,
      artifactStore: options.artifactStore,
      ops,
    });
    const server = await listenHttp(app, options.port, options.settings.requestTimeoutMs);
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    return {
      extras: { port, server },
      startedLog: { port },
      async drain() {
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
      },
    };
  },
});
export const startApi = apiRole.start;
export type ApiHandle = Awaited<ReturnType<typeof startApi>>;
