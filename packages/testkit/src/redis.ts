import type { Cluster, default as IORedis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { waitUntil } from './wait-until';

/** The Redis every test uses: REDIS_URL, or the local server `npm test` expects. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/**
 * Resolves once `connection` is connected. A producer connection has no offline queue (as the
 * API's, behind its readiness probe): a command sent before it connects is refused, and an
 * enqueue right after creating one would be left to the sweeper.
 */
export async function redisConnected(connection: IORedis | Cluster): Promise<void> {
  await waitUntil(() => connection.status === 'ready', { message: 'the Redis connection to be ready' });
}

/**
 * A queue prefix of the caller's own: test files share one Redis and run in parallel, and a
 * prefix keeps their jobs (and BullMQ's bookkeeping) apart.
 */
export function uniqueQueuePrefix(label = 'test'): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

/**
 * Deletes every key under one queue prefix: a "Redis flush" that touches only this test's keys,
 * since other test files share the Redis (never FLUSHALL/FLUSHDB there). On a Redis Cluster each
 * master holds its own slots, so every master is scanned, and keys are deleted by one DEL each
 * (pipelined): a multi-key DEL must stay in one slot, which a prefix that is not a hash tag does not.
 */
export async function deletePrefixedKeys(redis: IORedis | Cluster, prefix: string): Promise<number> {
  if (!/^(?:[A-Za-z0-9_-]+|\{[A-Za-z0-9_-]+\})$/.test(prefix))
    throw new Error(`refusing to delete keys for prefix ${JSON.stringify(prefix)}`);
  const nodes = redis.isCluster ? (redis as Cluster).nodes('master') : [redis as IORedis];
  let deleted = 0;
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      const results = await node.pipeline(keys.map((key) => ['del', key])).exec();
      deleted += (results ?? []).reduce((sum, [, count]) => sum + Number(count ?? 0), 0);
    } while (cursor !== '0');
  }
  return deleted;
}
