import { withTimeout } from '@botfleet/core';
import type { Queue } from 'bullmq';

/**
 * How many workers are connected to the queue, or null when Redis does not say. BullMQ finds them
 * with CLIENT LIST (each worker names its connections after the queue); hosts that refuse the
 * command get a placeholder entry without an address from BullMQ, which would read as one worker,
 * so it is answered as unknown. A Redis that is slow to answer makes the count unknown too, rather
 * than holding up whoever asked for it.
 */
export async function countQueueWorkers(queue: Queue, timeoutMs = 2_000): Promise<number | null> {
  try {
    const workers = await withTimeout(queue.getWorkers(), timeoutMs, 'CLIENT LIST timed out');
    return workers.every((worker) => typeof worker.addr === 'string') ? workers.length : null;
  } catch {
    return null;
  }
}
