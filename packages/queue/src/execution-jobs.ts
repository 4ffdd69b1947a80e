import type { JobsOptions } from 'bullmq';
import { enqueue, type Queues } from './queues';

/**
 * Infrastructure failures (browser crash, lost worker) are retried a bounded number of times;
 * bot failures never reach BullMQ's retry (the processor records them and returns).
 */
export const EXECUTION_JOB_OPTIONS: JobsOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 3_600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3_600 },
};

/** Enqueues the run of an execution row; the job id is the execution id, so repeats are no-ops. */
export function enqueueExecution(queues: Queues, executionId: string): Promise<void> {
  return enqueue(queues, 'execution.run', { executionId }, { ...EXECUTION_JOB_OPTIONS, jobId: executionId });
}

/** Redis pub/sub channel on which cancellations reach the workers running them. */
export const cancelChannel = (prefix: string): string => `${prefix}:execution-cancel`;
