import { AppError, type Logger } from '@botfleet/core';
import { luaScript, streamSlotKeys, type RedisConnection } from '@botfleet/queue';
import { randomBytes } from 'node:crypto';

/**
 * How long a slot stays counted without a renewal. A process renews its slots every third of
 * this, so a process that dies (no release ever sent) frees its slots within one lease.
 */
export const DEFAULT_SLOT_LEASE_MS = 30_000;

/** Past a cap the client is told to come back after this; a slot frees when any stream closes. */
const RETRY_AFTER_SECONDS = 10;

/** How many long-lived streams may be open at once (docs/live-runs.md). */
export interface StreamSlotLimits {
  /** MAX_STREAMS_PER_ORG: across every API process and machine; past it 429. */
  perOrganization: number;
  /** MAX_STREAMS_PER_KEY: across every API process and machine; past it 429. */
  perKey: number;
  /** MAX_STREAMS_PER_PROCESS (else derived from the open-file limit): this process only; past it 503. */
  perProcess: number;
}

/** Who holds a stream: the caller's key and its organization. */
export interface StreamHolder {
  organizationId: string;
  keyId: string;
}

/** One stream's place under the caps, held for as long as the stream is open. */
export interface StreamSlot {
  /** Frees the slot (idempotent); every way a stream closes must call it. */
  release(): void;
  /**
   * Called once if the slot is found gone when renewed (its lease ran out while Redis could not
   * be reached, or it was taken while Redis was away): the stream must end, and its client
   * reconnects and takes a slot again, so the counts stay true.
   */
  onLost(listener: () => void): void;
}

/**
 * The one admission of long-lived streams (event streams today; any socket that stays open, such
 * as live viewers and MCP streams, takes a slot the same way).
 */
export interface StreamSlots {
  /**
   * Takes a slot for one stream of `holder`, or throws: `unavailable` (503) when this process
   * has as many streams open as it may, `rate_limited` (429) past the organization's or the
   * key's cap. Both carry Retry-After.
   */
  acquire(holder: StreamHolder): Promise<StreamSlot>;
  /** Stops renewing and releases every slot still held (shutdown). */
  close(): Promise<void>;
}

/**
 * Redis's own clock, in ms: every API process, on whatever machine, scores leases by one clock.
 * Redis 5+ replicates a script's effects, so a script may read TIME before it writes.
 */
const REDIS_NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * KEYS: the organization's set, the key's set (streamSlotKeys, @botfleet/queue: one slot on a Cluster).
 * ARGV: slot id, organization cap, key cap, lease ms.
 * Drops expired slots (those of dead processes), then counts and adds in one atomic step, so two
 * processes can never both take the last slot. 0: taken; 1: the organization is full; 2: the key is.
 */
const ACQUIRE = luaScript(`${REDIS_NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 2 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 1 end
local expires = now + tonumber(ARGV[4])
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], expires, ARGV[1])
  redis.call('PEXPIRE', KEYS[i], ARGV[4])
end
return 0`);

/**
 * KEYS: one set. ARGV: lease ms, then slot ids. Moves each id's lease on; answers the ids that are
 * gone (never re-added: a slot that expired may have been given to another stream meanwhile).
 */
const RENEW = luaScript(`${REDIS_NOW}
local expires = now + tonumber(ARGV[1])
local lost = {}
for i = 2, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', expires, ARGV[i])
  else
    lost[#lost + 1] = ARGV[i]
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return lost`);

const RELEASE = luaScript(`redis.call('ZREM', KEYS[1], ARGV[1])
return redis.call('ZREM', KEYS[2], ARGV[1])`);

interface HeldSlot {
  id: string;
  keys: { organization: string; key: string };
  lostListeners: (() => void)[];
}

const CAP_WORDS = { api_key: 'this API key', organization: 'this organization (all its API keys together)' };

/**
 * Stream slots counted in Redis, so the organization's and the key's caps hold across every API
 * process; the process's own cap is counted here. When Redis does not answer, a stream is let in
 * under the process cap alone (as the rate limiter fails open); its slot is then found missing at
 * the first renewal Redis answers, and the stream ends so that it is counted when it comes back.
 */
export function createStreamSlots(options: {
  redis: RedisConnection;
  prefix: string;
  limits: StreamSlotLimits;
  logger: Logger;
  leaseMs?: number;
}): StreamSlots {
  const { redis, prefix, limits, logger } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_SLOT_LEASE_MS;
  // Slot ids are unique across processes: this process's token, then a counter.
  const processToken = randomBytes(6).toString('base64url');
  let counter = 0;
  const held = new Map<string, HeldSlot>();
  let acquiring = 0;
  const releases = new Set<Promise<unknown>>();
  let renewTimer: NodeJS.Timeout | null = null;
  let renewing: Promise<void> | null = null;
  let closed = false;

  const track = (work: Promise<unknown>) => {
    const settled = work.catch((err: unknown) =>
      logger.debug({ err: (err as Error).message }, 'stream slot release failed; its lease will expire'),
    );
    releases.add(settled);
    void settled.finally(() => releases.delete(settled));
  };

  /** Renews every held slot, one script call per set; ends the streams whose slot is gone. */
  async function renew(): Promise<void> {
    const bySet = new Map<string, HeldSlot[]>();
    for (const slot of held.values()) {
      for (const set of [slot.keys.organization, slot.keys.key]) {
        const slots = bySet.get(set);
        if (slots) slots.push(slot);
        else bySet.set(set, [slot]);
      }
    }
    const lost = new Set<string>();
    for (const [set, slots] of bySet) {
      try {
        const gone = (await RENEW.run(redis, [set], [leaseMs, ...slots.map((slot) => slot.id)])) as string[];
        for (const id of gone) lost.add(id);
      } catch (err) {
        // Redis is away: try again next round; slots older than a lease will be found gone then.
        logger.debug({ err: (err as Error).message }, 'stream slot renewal failed');
        return;
      }
    }
    for (const id of lost) {
      const slot = held.get(id);
      if (!slot) continue; // released while the renewal ran
      logger.info({ slotId: id }, 'stream slot lost (its lease ran out); ending the stream');
      for (const listener of slot.lostListeners.splice(0)) listener();
    }
  }

  // One timer for every slot of the process, running only while some slot is held.
  function startRenewing(): void {
    if (renewTimer || closed) return;
    renewTimer = setInterval(
      () => {
        renewing ??= renew()
          .catch((err: unknown) => logger.warn({ err: (err as Error).message }, 'stream slot renewal failed'))
          .finally(() => (renewing = null));
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    renewTimer.unref();
  }
  function stopRenewingIfIdle(): void {
    if (held.size > 0 || acquiring > 0 || !renewTimer) return;
    clearInterval(renewTimer);
    renewTimer = null;
  }

  function refuse(scope: 'api_key' | 'organization'): AppError {
    const cap = scope === 'api_key' ? limits.perKey : limits.perOrganization;
    return new AppError('rate_limited', `At most ${cap} event streams may be open at once for ${CAP_WORDS[scope]}`, {
      limit: scope,
      maxOpenStreams: cap,
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    });
  }

  return {
    async acquire(holder) {
      if (closed || held.size + acquiring >= limits.perProcess) {
        // Well before the process runs out of file descriptors: every other route keeps answering.
        throw new AppError('unavailable', 'This API process has as many streams open as it may; retry shortly');
      }
      acquiring++;
      const slot: HeldSlot = {
        id: `${processToken}.${++counter}`,
        keys: streamSlotKeys(prefix, holder),
        lostListeners: [],
      };
      try {
        const answer = await ACQUIRE.run(
          redis,
          [slot.keys.organization, slot.keys.key],
          [slot.id, limits.perOrganization, limits.perKey, leaseMs],
        ).catch((err: unknown) => {
          logger.debug({ err: (err as Error).message }, 'stream slots unavailable; admitting under the process cap');
          return 0;
        });
        if (answer === 1) throw refuse('organization');
        if (answer === 2) throw refuse('api_key');
        held.set(slot.id, slot);
        startRenewing();
      } finally {
        acquiring--;
      }
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          held.delete(slot.id);
          stopRenewingIfIdle();
          track(RELEASE.run(redis, [slot.keys.organization, slot.keys.key], [slot.id]));
        },
        onLost(listener) {
          slot.lostListeners.push(listener);
        },
      };
    },

    async close() {
      closed = true;
      if (renewTimer) clearInterval(renewTimer);
      renewTimer = null;
      for (const slot of [...held.values()]) {
        held.delete(slot.id);
        track(RELEASE.run(redis, [slot.keys.organization, slot.keys.key], [slot.id]));
      }
      await renewing;
      await Promise.all([...releases]);
    },
  };
}
