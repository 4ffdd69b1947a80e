import { AppError, effectiveLimit, type Logger, type OrganizationLimitOverrides } from '@botfleet/core';
import {
  luaScript,
  rateLimitBuckets,
  rateLimitCounterKey,
  type RateLimitBucket,
  type RedisConnection,
} from '@botfleet/queue';

const WINDOW_MS = 60_000;

const windowOf = (now: number) => Math.floor(now / WINDOW_MS);

/** INCRBY and the key's expiry in one atomic step: a crash between the two cannot leak a key. */
const LEASE_SCRIPT = luaScript(`local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`);

/** Which budget a request was refused by; named in the 429's message and `details.limit`. */
export type RateLimitScope = 'api_key' | 'organization';

/** Who is asking: the key, its organization and the rate the operator set the organization. */
export interface RateLimitedCaller {
  keyId: string;
  organizationId: string;
  limits: Pick<OrganizationLimitOverrides, 'rateLimitPerMinute'>;
}

interface BucketWindow {
  window: number;
  /** Tokens of this process's lease not yet spent. */
  remaining: number;
  /** The shared budget of the window is spent: answer 429 without asking Redis again. */
  full: boolean;
  /** A lease in flight: concurrent requests of the bucket wait for it instead of leasing too. */
  leasing?: Promise<void>;
}

/** How many tokens one Redis round trip leases: about 1% of the budget, 1 for small budgets. */
export function leaseSize(perMinute: number): number {
  return Math.max(1, Math.min(64, Math.floor(perMinute / 100)));
}

const SCOPE_WORDS: Record<RateLimitScope, string> = {
  api_key: 'this API key',
  organization: 'this organization (all its API keys together)',
};

/**
 * Fixed one-minute windows counted in Redis, so every API process shares them: one per API key
 * (`perMinute`, RATE_LIMIT_PER_MINUTE) and one per organization (the rate the operator set it,
 * else `perMinute` too), so creating more keys does not raise what an organization may send. A
 * request spends a token of both; the key's is taken first, so a key past its own budget does not
 * eat into its organization's.
 *
 * Redis stays off the per-request path: each process leases a block of a window's budget with
 * one INCRBY and spends it locally. A lease is counted when taken, so the fleet never admits more
 * than the limit; tokens left unspent at the window's end are lost, so a budget may get up to
 * (lease - 1) fewer requests per API process per minute (about 1% of it).
 *
 * When Redis does not answer, requests go through (fail open): the limiter protects capacity,
 * and must not turn a Redis outage into an API outage.
 */
export function createRateLimiter(options: {
  redis: RedisConnection;
  prefix: string;
  /** Per key, and per organization unless it has a rate of its own; 0: no default limit. */
  perMinute: number;
  logger: Logger;
}) {
  const { redis, prefix, perMinute, logger } = options;
  const windows = new Map<RateLimitBucket, BucketWindow>();
  let currentWindow = 0;

  const limited = (scope: RateLimitScope, limit: number, window: number) =>
    new AppError('rate_limited', `Rate limit of ${limit} requests per minute exceeded for ${SCOPE_WORDS[scope]}`, {
      limit: scope,
      perMinute: limit,
      retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - Date.now()) / 1000)),
    });

  async function takeLease(bucket: RateLimitBucket, limit: number, state: BucketWindow): Promise<void> {
    const counter = rateLimitCounterKey(prefix, bucket, state.window);
    const lease = leaseSize(limit);
    try {
      const total = Number(await LEASE_SCRIPT.run(redis, [counter], [lease, 2 * WINDOW_MS]));
      // Of this lease, only what fits under the limit is ours.
      const granted = Math.min(lease, limit - (total - lease));
      if (granted > 0) state.remaining += granted;
      else state.full = true;
    } catch (err) {
      logger.debug({ err: (err as Error).message }, 'rate limiter unavailable; letting the request through');
      state.remaining += 1;
    }
  }

  /** Spends one token of the bucket's budget for this window; false when it is spent. */
  async function take(bucket: RateLimitBucket, limit: number, window: number): Promise<boolean> {
    let state = windows.get(bucket);
    if (!state) {
      state = { window, remaining: 0, full: false };
      windows.set(bucket, state);
    }
    for (;;) {
      if (state.remaining > 0) {
        state.remaining -= 1;
        return true;
      }
      if (state.full) return false;
      if (!state.leasing) {
        const current = state;
        current.leasing = takeLease(bucket, limit, current).finally(() => (current.leasing = undefined));
      }
      await state.leasing;
    }
  }

  return async function checkRateLimit(caller: RateLimitedCaller): Promise<void> {
    const window = windowOf(Date.now());
    if (window !== currentWindow) {
      // A new minute: every entry of the last one is stale.
      windows.clear();
      currentWindow = window;
    }
    if (perMinute > 0 && !(await take(rateLimitBuckets.apiKey(caller.keyId), perMinute, window))) {
      throw limited('api_key', perMinute, window);
    }
    const organizationLimit = effectiveLimit(caller.limits.rateLimitPerMinute, perMinute > 0 ? perMinute : null);
    if (
      organizationLimit !== null &&
      !(await take(rateLimitBuckets.organization(caller.organizationId), organizationLimit, window))
    ) {
      throw limited('organization', organizationLimit, window);
    }
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * What the organization's window has counted this minute, across API processes: one Redis GET.
 * Leases are counted when taken, so this may run ahead of the requests served by up to a lease
 * per API process.
 */
export async function organizationRequestsThisMinute(
  redis: RedisConnection,
  prefix: string,
  organizationId: string,
): Promise<number> {
  const counted = await redis.get(
    rateLimitCounterKey(prefix, rateLimitBuckets.organization(organizationId), windowOf(Date.now())),
  );
  return counted === null ? 0 : Number(counted);
}
