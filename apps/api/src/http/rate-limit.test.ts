import { AppError, redisSettingsFromUrl } from '@botfleet/core';
import { createLogger } from '@botfleet/io';
import { createRedisConnection } from '@botfleet/queue';
import { deletePrefixedKeys, testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import { createRateLimiter, leaseSize, type RateLimitedCaller } from './rate-limit';

const redis = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'producer');
const logger = createLogger({ level: 'silent' });
const prefixes: string[] = [];

function limiter(perMinute: number, prefix: string) {
  return createRateLimiter({ redis, prefix, perMinute, logger });
}

/** A key of an organization of its own (the per-key budget alone decides), or of `organizationId`. */
function caller(keyId: string, organizationId = `org_of_${keyId}`, rateLimitPerMinute: number | null = null) {
  return { keyId, organizationId, limits: { rateLimitPerMinute } };
}

/** Runs `count` checks at once and counts those let through; anything but a 429 fails the test. */
async function admitted(
  check: (caller: RateLimitedCaller) => Promise<void>,
  who: RateLimitedCaller,
  count: number,
): Promise<number> {
  const outcomes = await Promise.allSettled(Array.from({ length: count }, () => check(who)));
  for (const outcome of outcomes) {
    if (outcome.status === 'rejected') expect((outcome.reason as AppError).code).toBe('rate_limited');
  }
  return outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
}

/** Starts well inside a wall-clock minute, so one test's requests share a window. */
async function insideOneMinute(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_050 - intoMinute));
}

beforeAll(async () => {
  // A producer connection refuses commands until it is connected (no offline queue).
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
});

afterAll(async () => {
  for (const prefix of prefixes) await deletePrefixedKeys(redis, prefix);
  redis.disconnect();
});

function newPrefix(): string {
  const prefix = uniqueQueuePrefix('rate');
  prefixes.push(prefix);
  return prefix;
}

describe('leaseSize', () => {
  it('leases one token for small budgets and about 1% (at most 64) for large ones', () => {
    expect(leaseSize(3)).toBe(1);
    expect(leaseSize(199)).toBe(1);
    expect(leaseSize(6000)).toBe(60);
    expect(leaseSize(1_000_000)).toBe(64);
  });
});

describe('createRateLimiter', () => {
  it('admits exactly the budget when many requests of one key arrive at once', async () => {
    await insideOneMinute();
    expect(await admitted(limiter(10, newPrefix()), caller('key_a'), 50)).toBe(10);
  });

  it('never admits more than the budget across processes sharing Redis, and loses less than a lease each', async () => {
    await insideOneMinute();
    const prefix = newPrefix();
    const perMinute = 1000; // a lease of 10
    const first = limiter(perMinute, prefix);
    const second = limiter(perMinute, prefix);
    let total = 0;
    for (let round = 0; round < 12; round++) {
      total += await admitted(first, caller('key_b'), 50);
      total += await admitted(second, caller('key_b'), 50);
    }
    expect(total).toBeLessThanOrEqual(perMinute);
    expect(total).toBeGreaterThanOrEqual(perMinute - 2 * (leaseSize(perMinute) - 1));
  });

  it('keeps budgets per key and answers 429 with a Retry-After inside the minute', async () => {
    await insideOneMinute();
    const check = limiter(2, newPrefix());
    await check(caller('key_c'));
    await check(caller('key_c'));
    const refused = await check(caller('key_c')).catch((err: unknown) => err as AppError);
    expect(refused).toBeInstanceOf(AppError);
    const { retryAfterSeconds } = (refused as AppError).details as { retryAfterSeconds: number };
    expect(retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    await expect(check(caller('key_d'))).resolves.toBeUndefined();
  });

  it('holds per organization too: more keys of one organization do not raise its budget', async () => {
    await insideOneMinute();
    const check = limiter(5, newPrefix());
    let total = 0;
    for (const keyId of ['key_f1', 'key_f2', 'key_f3', 'key_f4'])
      total += await admitted(check, caller(keyId, 'org_f'), 3);
    expect(total).toBe(5);
    const refused = (await check(caller('key_f5', 'org_f')).catch((err: unknown) => err)) as AppError;
    expect(refused.message).toBe(
      'Rate limit of 5 requests per minute exceeded for this organization (all its API keys together)',
    );
    expect(refused.details).toMatchObject({ limit: 'organization', perMinute: 5 });
    // Another organization's key is not touched by it.
    await expect(check(caller('key_g', 'org_g'))).resolves.toBeUndefined();
  });

  it('uses the organization’s own rate for the organization, while each key keeps the default', async () => {
    await insideOneMinute();
    const check = limiter(2, newPrefix());
    let total = 0;
    for (const keyId of ['key_h1', 'key_h2', 'key_h3']) total += await admitted(check, caller(keyId, 'org_h', 5), 3);
    expect(total).toBe(5);
    const keyRefusal = (await check(caller('key_h1', 'org_h', 5)).catch((err: unknown) => err)) as AppError;
    expect(keyRefusal.details).toMatchObject({ limit: 'api_key', perMinute: 2 });
    // A rate set below the default binds before the key's.
    expect(await admitted(check, caller('key_i', 'org_i', 1), 3)).toBe(1);
  });

  it('lets requests through when Redis does not answer', async () => {
    const broken = createRedisConnection(redisSettingsFromUrl('redis://127.0.0.1:1'), 'producer');
    broken.on('error', () => undefined);
    const check = createRateLimiter({ redis: broken, prefix: newPrefix(), perMinute: 1, logger });
    await expect(check(caller('key_e'))).resolves.toBeUndefined();
    await expect(check(caller('key_e'))).resolves.toBeUndefined();
    broken.disconnect();
  });
});
