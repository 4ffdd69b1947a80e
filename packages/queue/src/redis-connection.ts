import { settlesWithin, type RedisSettings } from '@botfleet/core';
import IORedis, {
  Cluster,
  SentinelConnector,
  type ClusterOptions,
  type RedisOptions,
  type SentinelConnectionOptions,
} from 'ioredis';
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';

/** A connection of any mode: one Redis (standalone or found through sentinels) or a Cluster. */
export type RedisConnection = IORedis | Cluster;

/**
 * What a connection is for. Producers (the API, the scheduler's reconcile) must fail fast when
 * Redis is down so a request gets a 503 instead of hanging; BullMQ workers must retry forever
 * (`maxRetriesPerRequest: null`, BullMQ requires it); a subscriber is a worker-style connection
 * that only listens (ioredis subscribes again after each reconnect).
 */
export type RedisConnectionKind = 'producer' | 'worker' | 'subscriber';

/**
 * The one factory of Redis connections: every role builds each of its connections here from the
 * one parsed setting (REDIS_* in packages/core redis-settings.ts), whatever the mode.
 */
export function createRedisConnection(settings: RedisSettings, kind: RedisConnectionKind): RedisConnection {
  const perNode = { ...KIND_OPTIONS[kind], ...credentialsOf(settings) };
  const tls = tlsOptionsOf(settings);
  switch (settings.mode) {
    case 'standalone':
      return new IORedis({
        ...perNode,
        host: settings.host,
        port: settings.port,
        db: settings.db,
        ...(tls ? { tls } : {}),
        reconnectOnError: reconnectOnReadOnly,
      });
    case 'sentinel':
      return new IORedis({
        ...perNode,
        sentinels: settings.sentinels.map(({ host, port }) => ({ host, port })),
        name: settings.masterName,
        role: 'master',
        db: settings.db,
        sentinelPassword: settings.sentinelPassword,
        // Sentinels of a TLS deployment listen on TLS too, with the same CA and client certificate.
        ...(tls ? { tls, sentinelTLS: tls, enableTLSForSentinelMode: true } : {}),
        // Hears +switch-master from the sentinels, so a failover moves the connection at once
        // rather than when the old master's socket finally fails.
        failoverDetector: true,
        Connector: FailoverSafeSentinelConnector,
        reconnectOnError: reconnectOnReadOnly,
      });
    case 'cluster': {
      // Options for each node's connection; the Cluster itself queues, retries and redirects.
      const { enableOfflineQueue, ...redisOptions } = perNode;
      const options: ClusterOptions = {
        enableOfflineQueue,
        redisOptions: { ...redisOptions, ...(tls ? { tls } : {}) },
        // Managed clusters (ElastiCache, MemoryDB) hand out addresses whose certificates name
        // the host as given: skip resolving it, so TLS checks the name it was asked for.
        ...(tls ? { dnsLookup: (address: string, callback) => callback(null, address) } : {}),
      };
      return new Cluster(
        settings.nodes.map(({ host, port }) => ({ host, port })),
        options,
      );
    }
  }
}

const KIND_OPTIONS: Record<RedisConnectionKind, RedisOptions> = {
  producer: { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 },
  worker: { maxRetriesPerRequest: null, enableReadyCheck: true },
  subscriber: { maxRetriesPerRequest: null, enableReadyCheck: true },
};

function credentialsOf(settings: RedisSettings): Pick<RedisOptions, 'username' | 'password'> {
  return {
    ...(settings.username !== undefined ? { username: settings.username } : {}),
    ...(settings.password !== undefined ? { password: settings.password } : {}),
  };
}

/**
 * ioredis's sentinel connector, less one race that leaves a connection dead for good.
 *
 * ioredis keeps a connection's failover detector (its subscriptions to +switch-master) until the
 * next connection to a master succeeds. When the master dies, the connection reconnects, and each
 * attempt first asks a sentinel for the master; if the old detector hears +switch-master while
 * that question is in flight, it disconnects the connector, the attempt then throws "Connection
 * is closed.", and ioredis takes that for a deliberate close: status `end`, never reconnecting
 * (every command after it fails). CI saw the API's producer connection stay so after a failover.
 * Here each connection attempt first drops the previous connection's detector: an attempt asks
 * the sentinels anyway, so it needs no signal to find the new master, and the attempt that
 * reaches a master subscribes afresh. BullMQ's duplicates of a connection copy its options, so
 * they use this connector too. (`redis-sentinel.test.ts` holds a sentinel's answer until after
 * the failover to force the race.)
 */
export class FailoverSafeSentinelConnector extends SentinelConnector {
  // ioredis builds a custom connector from its options, typed `unknown` there.
  constructor(options: unknown) {
    super(options as SentinelConnectionOptions);
  }

  override connect(...args: Parameters<SentinelConnector['connect']>): ReturnType<SentinelConnector['connect']> {
    // The detector is private in ioredis's types; ioredis is pinned by the lock file and the
    // test above fails if this field stops being the detector.
    const self = this as unknown as { failoverDetector: { cleanup(): void } | null };
    self.failoverDetector?.cleanup();
    self.failoverDetector = null;
    return super.connect(...args);
  }
}

/**
 * A master demoted to replica (a failover the client missed) answers writes with READONLY:
 * reconnect, which asks the sentinels (or DNS) for the master again, and resend the command.
 * A script that hit READONLY wrote nothing (Redis refuses the first write), so resending is safe.
 */
const reconnectOnReadOnly = (err: Error): 2 | false => (err.message.startsWith('READONLY') ? 2 : false);

/** The TLS files of a setting, read once per setting (a role opens several connections). */
const tlsOptionsCache = new WeakMap<RedisSettings, TlsOptions | null>();

function tlsOptionsOf(settings: RedisSettings): TlsOptions | null {
  if (!tlsOptionsCache.has(settings)) {
    const files = settings.tls;
    tlsOptionsCache.set(
      settings,
      files === null
        ? null
        : {
            ...(files.caFile ? { ca: readFileSync(files.caFile) } : {}),
            ...(files.certFile ? { cert: readFileSync(files.certFile) } : {}),
            ...(files.keyFile ? { key: readFileSync(files.keyFile) } : {}),
          },
    );
  }
  return tlsOptionsCache.get(settings)!;
}

/** Whether the connection is a Redis Cluster client (slots spread over several masters). */
export const isCluster = (connection: RedisConnection): connection is Cluster => connection instanceof Cluster;

/**
 * Closes a connection and resolves once its sockets are gone, so a stopped role (or a test file)
 * leaves nothing open behind it: QUIT when Redis answers, a hard disconnect when it does not
 * within `timeoutMs` (Redis down, or a producer whose offline queue refuses the QUIT).
 */
export async function closeRedis(connection: RedisConnection, timeoutMs = 2_000): Promise<void> {
  if (hasEnded(connection)) return;
  const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
  const quit = connection.quit().catch(() => undefined);
  if (!(await settlesWithin(quit, timeoutMs)) || !hasEnded(connection)) connection.disconnect();
  await settlesWithin(ended, timeoutMs);
}

const hasEnded = (connection: RedisConnection): boolean => connection.status === 'end';
