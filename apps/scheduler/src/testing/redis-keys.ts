import type IORedis from 'ioredis';

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
