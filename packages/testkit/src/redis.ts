import type IORedis from 'ioredis';
import { randomBytes } from 'node:crypto';

/** The Redis every test uses: REDIS_URL, or the local server `npm test` expects. */
export function testRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
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
 * since other test files share the Redis (never FLUSHALL/FLUSHDB there).
 */
export async function deletePrefixedKeys(redis: IORedis, prefix: string): Promise<number> {
  if (!/^[A-Za-z0-9_-]+$/.test(prefix)) throw new Error(`refusing to delete keys for prefix ${JSON.stringify(prefix)}`);
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}
