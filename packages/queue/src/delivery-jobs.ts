import { enqueue, type Queues } from './queues';

/**
 * One job id per attempt: a retry is a new job, so it never collides with the finished job of
 * the attempt before it, while two enqueues of the same attempt (sweepers in two processes, a
 * re-run of the enqueuing job) dedupe in BullMQ. Delivery ids never contain ':'.
 */
export function deliveryJobId(deliveryId: string, attemptNumber: number): string {
  return `${deliveryId}-${attemptNumber}`;
}

/**
 * Enqueues the job that makes attempt `attemptNumber` of a delivery, after `delayMs`. The row
 * must already say the attempt is due (nextAttemptAt); the job only carries the id.
 * The first attempt is `enqueueDelivery(queues, deliveryId, 1)`, after the transaction commits.
 */
export async function enqueueDelivery(queues: Queues, deliveryId: string, attemptNumber: number, delayMs = 0): Promise<void> {
  await enqueue(queues, 'webhook.deliver', { deliveryId }, {
    jobId: deliveryJobId(deliveryId, attemptNumber),
    delay: Math.max(0, Math.round(delayMs)),
    // BullMQ's own retries only cover infrastructure hiccups inside our processor (database
    // briefly away); webhook failures are retried by a new job per attempt (see the processor).
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: true,
    removeOnFail: { age: 24 * 3600, count: 1_000 },
  });
}
