import type { Logger } from '@botfleet/core';
import { findOverdueDeliveries, type PrismaClient } from '@botfleet/db';
import { webhookDeliver, type Queues } from '@botfleet/queue';
import type { JobState } from 'bullmq';

export interface LostJobSweepOptions {
  db: PrismaClient;
  queues: Queues;
  logger: Logger;
  /** How long past its due time a delivery may sit before its job counts as lost. */
  graceMs: number;
  /** Only deliveries of this organization (tests and benchmarks share a database). */
  organizationId?: string;
  batchSize?: number;
}

/** States in which the job will still run by itself. */
const ALIVE: ReadonlySet<JobState | 'unknown'> = new Set([
  'waiting',
  'delayed',
  'active',
  'prioritized',
  'waiting-children',
]);

/**
 * One pass of the lost-job sweeper (the delivery role runs it periodically). Redis holds only
 * work in flight; the rows are the truth. This finds pending deliveries that are overdue and
 * whose job for the next attempt is not alive in Redis (lost in a flush, or the enqueue after a
 * commit never happened), and enqueues it again. Sweepers in several processes are harmless:
 * the job id dedupes, and the attempt claim on the row stops a duplicate job from sending twice.
 * Returns how many deliveries it re-enqueued.
 */
export async function sweepLostDeliveryJobs(options: LostJobSweepOptions, signal?: AbortSignal): Promise<number> {
  const queue = options.queues.get(webhookDeliver.queue);
  const overdue = await findOverdueDeliveries(options.db, {
    dueBefore: new Date(Date.now() - options.graceMs),
    limit: options.batchSize ?? 500,
    ...(options.organizationId ? { organizationId: options.organizationId } : {}),
  });
  let requeued = 0;
  for (const delivery of overdue) {
    if (signal?.aborted) break;
    const attempt = delivery.attemptCount + 1;
    const jobId = webhookDeliver.jobIdOf({ deliveryId: delivery.id }, { attempt });
    const state = await queue.getJobState(jobId);
    if (ALIVE.has(state)) continue;
    // A first attempt may also have been enqueued under the bare delivery id.
    if (attempt === 1 && ALIVE.has(await queue.getJobState(delivery.id))) continue;
    // A finished job with this id would make the add below a silent no-op.
    if (state === 'completed' || state === 'failed') await queue.remove(jobId);
    await webhookDeliver.enqueue(options.queues, { deliveryId: delivery.id }, { attempt });
    requeued++;
  }
  if (requeued > 0) options.logger.info({ requeued }, 're-enqueued deliveries whose job was missing');
  return requeued;
}
