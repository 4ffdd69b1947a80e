import { Queue } from 'bullmq';
import type { QueueName } from './jobs';
import type { RedisConnection } from './redis-connection';

export interface Queues {
  readonly prefix: string;
  /** The connection the queues share, for scripts on keys beside them (fair-share.ts). */
  readonly connection: RedisConnection;
  get(name: QueueName): Queue;
  close(): Promise<void>;
}

/**
 * One BullMQ Queue per queue name, sharing a connection. `prefix` isolates deployments and tests.
 * Names come from the job declarations: `queues.get(executionRun.queue)`.
 */
export function createQueues(connection: RedisConnection, prefix: string): Queues {
  const cache = new Map<QueueName, Queue>();
  let closed = false;
  return {
    prefix,
    connection,
    get(name) {
      // After close, a late caller (an attempt that outlived its role's shutdown) must fail, not
      // quietly open a fresh Redis connection that nothing will ever close.
      if (closed) throw new Error(`the ${name} queue is closed (the role is shutting down)`);
      let queue = cache.get(name);
      if (!queue) {
        queue = new Queue(name, { connection, prefix });
        // A failing producer connection must not throw from an event emitter (it would crash).
        queue.on('error', () => undefined);
        cache.set(name, queue);
      }
      return queue;
    },
    async close() {
      closed = true;
      await Promise.all([...cache.values()].map((q) => q.close()));
      cache.clear();
    },
  };
}
