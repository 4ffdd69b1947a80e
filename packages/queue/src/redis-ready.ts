import { bullmqMetaKey } from './bullmq-keys';
import { luaScript } from './lua-script';
import type { RedisConnection } from './redis-connection';
import { queueSlotProbeKey } from './redis-keys';

/**
 * A write to a key of ours and a read of one of BullMQ's, beside the queue, in one script: what
 * every BullMQ command of the queue needs, and what a PING does not show. It fails on a sentinel
 * (no EVAL), on a replica (READONLY: a master demoted by a failover the client missed), on a
 * cluster node reached as one Redis (MOVED, unless the slot happens to be its own) and, on a
 * Redis Cluster, when the queue prefix is not a hash tag (CROSSSLOT).
 */
const SLOT_PROBE = luaScript(`redis.call('SET', KEYS[1], ARGV[1], 'PX', 60000)
return redis.call('EXISTS', KEYS[2])`);

/**
 * Readiness of a role's work on one queue: the connection is up, and a script over the queue's
 * keys runs on its master. `queue` is the queue's name, `prefix` the QUEUE_PREFIX.
 */
export async function queueSlotReady(connection: RedisConnection, prefix: string, queue: string): Promise<void> {
  // Not connected fails at once: a worker connection would queue the script until Redis returns.
  if (connection.status !== 'ready') throw new Error(`redis connection is ${connection.status}`);
  await SLOT_PROBE.run(connection, [queueSlotProbeKey(prefix, queue), bullmqMetaKey(prefix, queue)], [Date.now()]);
}
