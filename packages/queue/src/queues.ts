import { withTimeout } from '@botfleet/core';
import { Queue, type JobsOptions } from 'bullmq';
import type IORedis from 'ioredis';
import { jobs, type JobName, type JobPayload, type QueueName } from './jobs';

export interface Queues {
  readonly prefix: string;
  get(name: QueueName): Queue;
  close(): Promise<void>;
}

/** One BullMQ Queue per queue name, sharing a connection. `prefix` isolates deployments and tests. */
export function createQueues(connection: IORedis, prefix: string): Queues {
  const cache = new Map<QueueName, Queue>();
  let closed = false;
  return {
    prefix,
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

const ENQUEUE_TIMEOUT_MS = 3_000;

/** BullMQ forbids ':' in custom job ids; our ids never contain one, but guard the invariant. */
function assertJobId(jobId: string): void {
  if (jobId.includes(':')) throw new Error(`job id must not contain ':' (${jobId})`);
}

/**
 * Validates the payload against the catalog and adds the job. Ids are the row id, so adding the
 * same job twice while the first is still in Redis is a no-op (safe re-enqueue).
 */
export async function enqueue<N extends JobName>(
  queues: Queues,
  name: N,
  payload: JobPayload<N>,
  options: JobsOptions & { jobId: string },
): Promise<void> {
  const def = jobs[name];
  const data = def.schema.parse(payload);
  assertJobId(options.jobId);
  // BullMQ waits for a connection that is down instead of failing; a producer must not hang.
  await withTimeout(queues.get(def.queue).add(name, data, options), ENQUEUE_TIMEOUT_MS, `Redis did not accept the ${name} job within ${ENQUEUE_TIMEOUT_MS} ms`);
}
