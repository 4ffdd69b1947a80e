import { settlesWithin } from '@botfleet/core';
import type { Worker } from 'bullmq';

export interface StopWorkerOptions {
  /**
   * Called once when the drain deadline passes with jobs still in flight: the processor should
   * end them now (e.g. hand them back to the queue). Without it they are abandoned instead.
   */
  onDrainDeadline?: () => void;
  /** How long jobs get to end after onDrainDeadline (default 5 s). */
  handBackTimeoutMs?: number;
}

/**
 * Stops a BullMQ worker within a deadline: stop fetching, wait for jobs in flight up to
 * `drainTimeoutMs`, then close. Returns whether they all ended (finished or handed back); the
 * ones that did not are abandoned (their locks expire and the job or its row is recovered elsewhere).
 *
 * worker.close() alone waits for active jobs with no deadline (and never returns while Redis is
 * down), and a later close(true) only returns that same pending promise; hence pause() first.
 */
export async function stopWorker(
  worker: Worker,
  drainTimeoutMs: number,
  options: StopWorkerOptions = {},
): Promise<boolean> {
  const pausing = worker.pause();
  let drained = await settlesWithin(pausing, drainTimeoutMs);
  if (!drained && options.onDrainDeadline) {
    options.onDrainDeadline();
    drained = await settlesWithin(pausing, options.handBackTimeoutMs ?? 5_000);
  }
  await settlesWithin(worker.close(true), 5_000);
  if (!drained) {
    // When abandoned jobs end, BullMQ's loop reopens its blocking connection even though the
    // worker is closed; drop it then, or it keeps the process alive.
    void pausing.then(() => worker.disconnect()).catch(() => undefined);
  }
  return drained;
}
