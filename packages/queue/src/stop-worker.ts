import { settlesWithin } from '@botfleet/core';
import type { Worker } from 'bullmq';

/**
 * Stops a BullMQ worker within a deadline: stop fetching, wait for jobs in flight up to
 * `drainTimeoutMs`, then close. Returns whether they all finished; the ones that did not are
 * abandoned (their locks expire and the job or its row is recovered elsewhere).
 *
 * worker.close() alone waits for active jobs with no deadline (and never returns while Redis is
 * down), and a later close(true) only returns that same pending promise; hence pause() first.
 */
export async function stopWorker(worker: Worker, drainTimeoutMs: number): Promise<boolean> {
  const pausing = worker.pause();
  const drained = await settlesWithin(pausing, drainTimeoutMs);
  await settlesWithin(worker.close(true), 5_000);
  if (!drained) {
    // When abandoned jobs end, BullMQ's loop reopens its blocking connection even though the
    // worker is closed; drop it then, or it keeps the process alive.
    void pausing.then(() => worker.disconnect()).catch(() => undefined);
  }
  return drained;
}
