import { AppError, type Logger } from '@botfleet/core';
import { luaScript, type RedisConnection } from '@botfleet/queue';

const WINDOW_MS = 60_000;

/** INCRBY and the key's expiry in one atomic step: a crash between the two cannot leak a key. */
const LEASE_SCRIPT = luaScript(`local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if n == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return n`);

interface KeyWindow {
  window: number;
  /** Tokens of this process's lease not yet spent. */
  remaining: number;
  /** The shared budget of the window is spent: answer 429 without asking Redis again. */
  full: boolean;
  /** A lease in flight: concurrent requests of the key wait for it instead of leasing too. */
  leasing?: Promise<void>;
}

/** How many tokens one Redis round trip leases: about 1% of the budget, 1 for small budgets. */
export function leaseSize(perMinute: number): number {
  return Math.max(1, Math.min(64, Math.floor(perMinute / 100)));
}

/**
 * A fixed one-minute window per API key, counted in Redis so every API process shares it.
 *
 * Redis stays off the per-request path: each process leases a block of the window's budget
 * with one INCRBY and spends it locally. A lease is counted when taken, so the fleet never
 * admits more than the limit; tokens left unspent at the window's end are lost, so a key may
 * get up to (lease - 1) fewer requests per API process per minute (about 1% of the budget).
 *
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
  const lease = leaseSize(perMinute);
  const windows = new Map<string, KeyWindow>();
  let currentWindow = 0;

  const limited = (window: number) =>
    new AppError('rate_limited', `Rate limit of ${perMinute} requests per minute exceeded for this API key`, {
      retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - Date.now()) / 1000)),
    });

  async function takeLease(keyId: string, state: KeyWindow): Promise<void> {
    const counter = `${prefix}:rate:${keyId}:${state.window}`;
    try {
      const total = Number(await LEASE_SCRIPT.run(redis, [counter], [lease, 2 * WINDOW_MS]));
      // Of this lease, only what fits under the limit is ours.
      const granted = Math.min(lease, perMinute - (total - lease));
      if (granted > 0) state.remaining += granted;
      else state.full = true;
    } catch (err) {
      logger.debug({ err: (err as Error).message }, 'rate limiter unavailable; letting the request through');
      state.remaining += 1;
    }
  }

  return async function checkRateLimit(keyId: string): Promise<void> {
    if (perMinute <= 0) return;
    const window = Math.floor(Date.now() / WINDOW_MS);
    if (window !== currentWindow) {
      // A new minute: every entry of the last one is stale.
      windows.clear();
      currentWindow = window;
    }
    let state = windows.get(keyId);
    if (!state) {
      state = { window, remaining: 0, full: false };
      windows.set(keyId, state);
    }
    for (;;) {
      if (state.remaining > 0) {
        state.remaining -= 1;
        return;
      }
      if (state.full) throw limited(window);
      if (!state.leasing) {
        const current = state;
        current.leasing = takeLease(keyId, current).finally(() => (current.leasing = undefined));
      }
      await state.leasing;
    }
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
