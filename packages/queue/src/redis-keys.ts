/*
 * botfleet's own Redis keys and pub/sub channels: every one is built here and nowhere else.
 * BullMQ's internal keys have their own home, bullmq-keys.ts.
 *
 * The Cluster rule: every key starts with the queue prefix (QUEUE_PREFIX), with nothing before it.
 * In Redis Cluster the prefix is a hash tag, `{botfleet}` (resolveQueuePrefix in @botfleet/core
 * refuses any other), and Redis hashes only the first `{...}` of a key, so every key here lands in
 * the prefix's slot, beside BullMQ's keys of every queue. That is what lets one Lua script touch
 * several of them together, and BullMQ's too (fair-share.ts reads the queue's waiting keys in the
 * call that hands out tags; stream-slots.ts counts an organization's and a key's slots at once),
 * without CROSSSLOT (docs/operations.md, "Hash tag"). A key built any other way would work on one
 * Redis and fail only on a cluster. Channels are not keys: a cluster delivers PUBLISH to every
 * node whatever the name; they start with the prefix so that deployments sharing a Redis stay apart.
 *
 * A key beside a queue (`<prefix>:<queue>:...`) has a second `:` after the queue's name, so it
 * can never be taken for one of BullMQ's job keys (`<prefix>:<queue>:<jobId>`).
 */

/** Pub/sub channel on which cancellations reach the workers running them. */
export const cancelChannel = (prefix: string): string => `${prefix}:execution-cancel`;

/**
 * Pub/sub channel of execution notices: whoever changes a run publishes here after the commit,
 * and each API process's one subscriber fans them out to its live event streams (docs/live-runs.md).
 */
export const executionEventsChannel = (prefix: string): string => `${prefix}:execution-events`;

/**
 * The fair-share state beside `queue` (fair-share.ts): the virtual clock (a string) and each
 * organization's last start tag (a hash by organization id).
 */
export function fairShareKeys(prefix: string, queue: string): { clock: string; last: string } {
  const base = `${prefix}:${queue}:fair`;
  return { clock: `${base}:clock`, last: `${base}:last` };
}

/** The key a readiness probe writes beside `queue` (redis-ready.ts), in the slot of the queue's own keys. */
export const queueSlotProbeKey = (prefix: string, queue: string): string => `${prefix}:${queue}:probe:ready`;

/** A rate-limit budget: one API key's, or one organization's (all its keys together). */
export type RateLimitBucket = `key:${string}` | `org:${string}`;

export const rateLimitBuckets = {
  apiKey: (keyId: string): RateLimitBucket => `key:${keyId}`,
  organization: (organizationId: string): RateLimitBucket => `org:${organizationId}`,
};

/** The counter of a budget's requests in one fixed window (`window`: its number since the epoch). */
export const rateLimitCounterKey = (prefix: string, bucket: RateLimitBucket, window: number): string =>
  `${prefix}:rate:${bucket}:${window}`;

/**
 * The two sorted sets an open stream's slot is counted in (apps/api's stream-slots.ts): its
 * organization's and its API key's, stream ids scored by when their lease ends.
 */
export function streamSlotKeys(
  prefix: string,
  holder: { organizationId: string; keyId: string },
): { organization: string; key: string } {
  return {
    organization: `${prefix}:stream-slots:org:${holder.organizationId}`,
    key: `${prefix}:stream-slots:key:${holder.keyId}`,
  };
}
