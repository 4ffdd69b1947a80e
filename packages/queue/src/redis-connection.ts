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
