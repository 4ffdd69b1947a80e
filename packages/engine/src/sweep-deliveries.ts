import { CONFIG_DEFAULTS } from '@botfleet/core';
import { findOverdueDeliveries } from '@botfleet/db';
import { removeJob, webhookDeliver } from '@botfleet/queue';
import type { EngineDeps } from './engine-deps';
import type { SweepOptions } from './sweep-options';

export interface DeliverySweepOptions extends SweepOptions {
  /** How long past its due time a delivery may sit before its job counts as lost. */
  graceMs: number;
}

/** States in which the job will still run by itself. */
const ALIVE: ReadonlySet<string> = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * The delivery sweep (the delivery role runs it periodically). Redis holds only work in flight;
 * the rows are the truth. This finds pending deliveries that are overdue and whose job for the
 * next attempt is not alive in Redis (lost in a flush, or the enqueue after a commit never
 * happened), and enqueues it again. Sweepers in several processes are harmless: the job id
 * dedupes, and the attempt claim on the row stops a duplicate job from sending twice. Returns how
 * many deliveries it re-enqueued.
 */
export async function sweepDeliveries(deps: EngineDeps, options: DeliverySweepOptions): Promise<number> {
  const queue = deps.queues.get(webhookDeliver.queue);
  const overdue = await findOverdueDeliveries(deps.db, {
    dueBefore: new Date(Date.now() - options.graceMs),
    limit: options.batchSize ?? CONFIG_DEFAULTS.fixed.sweepBatchSize,
    ...(options.organizationId ? { organizationId: options.organizationId } : {}),
  });
  let requeued = 0;
  for (const delivery of overdue) {
    if (options.signal?.aborted) break;
    const attempt = delivery.attemptCount + 1;
    const jobId = webhookDeliver.jobIdOf({ deliveryId: delivery.id }, { attempt });
    const state = await queue.getJobState(jobId);
    if (ALIVE.has(state)) continue;
    // A finished job with this id would make the add below a silent no-op.
    if (state === 'completed' || state === 'failed') await removeJob(deps.queues, webhookDeliver, jobId);
    await webhookDeliver.enqueue(deps.queues, { deliveryId: delivery.id }, { attempt });
    requeued++;
  }
  if (requeued > 0) deps.logger.info({ requeued }, 're-enqueued deliveries whose job was missing');
  return requeued;
}
