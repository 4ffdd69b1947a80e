import { settlesWithin } from '@botfleet/core';
import IORedis, { type RedisOptions } from 'ioredis';

/**
 * Producers (the API) must fail fast when Redis is down so a request gets a 503 instead of
 * hanging; BullMQ workers must retry forever (`maxRetriesPerRequest: null`, BullMQ requires it).
 */
export function createRedisConnection(url: string, kind: 'producer' | 'worker'): IORedis {
  const options: RedisOptions =
    kind === 'producer'
      ? { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000, lazyConnect: false }
      : { maxRetriesPerRequest: null, enableReadyCheck: true };
  return new IORedis(url, options);
}

export type RedisConnection = IORedis;

/**
 * Closes a connection and resolves once its socket is gone, so a stopped role (or a test file)
 * leaves nothing open behind it: QUIT when Redis answers, a hard disconnect when it does not
 * within `timeoutMs` (Redis down, or a producer whose offline queue refuses the QUIT).
 */
export async function closeRedis(connection: IORedis, timeoutMs = 2_000): Promise<void> {
  if (hasEnded(connection)) return;
  const ended = new Promise<void>((resolve) => connection.once('end', () => resolve()));
  const quit = connection.quit().catch(() => undefined);
  if (!(await settlesWithin(quit, timeoutMs)) || !hasEnded(connection)) connection.disconnect();
  await settlesWithin(ended, timeoutMs);
}

const hasEnded = (connection: IORedis): boolean => connection.status === 'end';
