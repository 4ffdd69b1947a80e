import { QueueKeys, type Queue } from 'bullmq';

/**
 * The one place that knows BullMQ's internal Redis layout. botfleet's own Lua scripts
 * (fair-share.ts) read a queue's keys directly, in the same atomic step as their own state,
 * which BullMQ's public API cannot offer; every key they touch is named here, with the Redis
 * type the scripts assume.
 *
 * Checked against bullmq 6.7.0 (the exact version packages/queue pins). Upgrading BullMQ means
 * re-reading its `commands/*.lua` for these keys; bullmq-keys.test.ts fails if a key is no
 * longer where, or what, this module says after an add.
 */
export const BULLMQ_LAYOUT_CHECKED_AGAINST = '6.7.0';

/** The Redis type each key is read as: LLEN works on a list, ZCARD on a sorted set. */
export const BULLMQ_KEY_TYPES = {
  /** Jobs ready to run without a priority, in order. */
  wait: 'list',
  /** Jobs ready to run with a priority (execution.run always has one), scored by it. */
  prioritized: 'zset',
  /** Jobs waiting for their delay (a retry, a run past its organization's cap), scored by due time. */
  delayed: 'zset',
} as const;

export type BullmqWaitingKeys = { readonly [K in keyof typeof BULLMQ_KEY_TYPES]: string };

/** The keys of `queue` holding jobs that will still run: together empty means nothing waits. */
export function bullmqWaitingKeys(queue: Queue): BullmqWaitingKeys {
  const key = (name: keyof typeof BULLMQ_KEY_TYPES): string => {
    const value = queue.keys[name];
    if (!value) throw new Error(`BullMQ ${BULLMQ_LAYOUT_CHECKED_AGAINST} layout changed: queue has no '${name}' key`);
    return value;
  };
  return { wait: key('wait'), prioritized: key('prioritized'), delayed: key('delayed') };
}

/**
 * BullMQ's `meta` key of `queue` (a hash it writes when the queue is first used), which readiness
 * probes (redis-ready.ts) read beside a key of botfleet's own, so they run where the queue's scripts run.
 */
export const bullmqMetaKey = (prefix: string, queue: string): string => new QueueKeys(prefix).toKey(queue, 'meta');
