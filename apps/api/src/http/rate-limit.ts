import { AppError, type Logger } from '@botfleet/core';
import type { RedisConnection } from '@botfleet/queue';

/**
 * A fixed one-minute window per API key, counted in Redis so every API process shares it.
 * When Redis does not answer, requests go through (fail open): the limiter protects capacity,
 * and must not turn a Redis outage into an API outage.
 */
export function createRateLimiter(options: {
  redis: RedisConnection;
  prefix: string;
  perMinute: number;
  logger: Logger;
}) {
  const { redis, prefix, perMinute, logger } = options;
  return async function checkRateLimit(keyId: string): Promise<void> {
    if (perMinute <= 0) return;
    const window = Math.floor(Date.now() / 60_000);
    const counter = `${prefix}:rate:${keyId}:${window}`;
    let count: number;
    try {
      const results = await redis.multi().incr(counter).pexpire(counter, 120_000).exec();
      count = Number(results?.[0]?.[1] ?? 0);
    } catch (err) {
      logger.debug({ err: (err as Error).message }, 'rate limiter unavailable; letting the request through');
      return;
    }
    if (count > perMinute) {
      const retryAfter = Math.max(1, Math.ceil(((window + 1) * 60_000 - Date.now()) / 1000));
      throw new AppError('rate_limited', `Rate limit of ${perMinute} requests per minute exceeded for this API key`, {
        retryAfterSeconds: retryAfter,
      });
    }
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
