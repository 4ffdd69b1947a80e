import type { Logger } from '@botfleet/core';
import { findOverdueDeliveries, type PrismaClient } from '@botfleet/db';
import type { Queues } from '@botfleet/queue';
import type { JobState } from 'bullmq';
import { deliveryJobId, enqueueDelivery } from '@botfleet/queue';

export interface SweeperOptions {
  db: PrismaClient;
  queues: Queues;
  logger: Logger;
  intervalMs: number;
  /** How long past its due time a delivery may sit before its job counts as lost. */
  graceMs: number;
  /** Only deliveries of this organization (tests and benchmarks share a database). */
  organizationId?: string;
  batchSize?: number;
}

/** States in which the job will still run by itself. */
const ALIVE: ReadonlySet<JobState | 'unknown'> = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * Redis holds only work in flight; the rows are the truth. Every interval this finds pending
 * deliveries that are overdue and whose job for the next attempt is not alive in Redis (lost in
 * a flush, or the enqueue after a commit never happened), and enqueues it again. Sweepers in
 * several processes are harmless: the job id dedupes, and the attempt claim on the row stops a
 * duplicate job from sending twice.
 */
export function startLostJobSweeper(options: SweeperOptions): { stop(): Promise<void> } {
  const log = options.logger.child({ component: 'delivery-sweeper' });
  const queue = options.queues.get('deliveries');
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function sweep(): Promise<void> {
    const overdue = await findOverdueDeliveries(options.db, {
      dueBefore: new Date(Date.now() - options.graceMs),
      limit: options.batchSize ?? 500,
      ...(options.organizationId ? { organizationId: options.organizationId } : {}),
    });
    let requeued = 0;
    for (const delivery of overdue) {
      if (stopped) break;
      const attemptNumber = delivery.attemptCount + 1;
      const jobId = deliveryJobId(delivery.id, attemptNumber);
      const state = await queue.getJobState(jobId);
      if (ALIVE.has(state)) continue;
      // A first attempt may also have been enqueued under the bare delivery id.
      if (attemptNumber === 1 && ALIVE.has(await queue.getJobState(delivery.id))) continue;
      // A finished job with this id would make the add below a silent no-op.
      if (state === 'completed' || state === 'failed') await queue.remove(jobId);
      await enqueueDelivery(options.queues, delivery.id, attemptNumber);
      requeued++;
    }
    if (requeued > 0) log.info({ requeued }, 're-enqueued deliveries whose job was missing');
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = sweep()
        .catch((err: unknown) => log.error({ err: err instanceof Error ? err.message : String(err) }, 'delivery sweep failed'))
        .finally(schedule);
    }, options.intervalMs);
    timer.unref();
  }

  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
