import { z } from 'zod';
import { defineJob } from '../define-job';

/**
 * Makes one attempt of a webhook delivery (apps/delivery). The row must already say the attempt
 * is due (nextAttemptAt); the job only carries the id. The first attempt is enqueued with
 * `{ attempt: 1 }` after the transaction that creates the row commits.
 */
export const webhookDeliver = defineJob({
  name: 'webhook.deliver',
  queue: 'deliveries',
  schema: z.object({ deliveryId: z.string().min(1) }),
  options: {
    // BullMQ's own retries only cover infrastructure hiccups inside our processor (database
    // briefly away); webhook failures are retried by a new job per attempt (see the processor).
    attempts: 3,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: true,
    removeOnFail: { age: 24 * 3600, count: 1_000 },
  },
  idKey: z.object({ attempt: z.number().int().min(1) }),
  /**
   * One job id per attempt: a retry is a new job, so it never collides with the finished job of
   * the attempt before it, while two enqueues of the same attempt (sweepers in two processes, a
   * re-run of the enqueuing job) dedupe in BullMQ. Delivery ids never contain ':'.
   */
  jobId: ({ deliveryId }, { attempt }) => `${deliveryId}-${attempt}`,
});

export type WebhookDeliverPayload = z.infer<typeof webhookDeliver.schema>;
