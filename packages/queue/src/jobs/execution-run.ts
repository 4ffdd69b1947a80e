import { z } from 'zod';
import { defineJob } from '../define-job';

/**
 * Runs one execution row end to end (apps/worker). The job id is the execution id, so a
 * re-enqueue (sweeper, scheduler retry) of a job still in Redis is a no-op.
 */
export const executionRun = defineJob({
  name: 'execution.run',
  queue: 'executions',
  schema: z.object({ executionId: z.string().min(1) }),
  /**
   * Infrastructure failures (browser crash, lost worker) are retried by the worker as new
   * attempts, counted on the row up to EXECUTION_MAX_INFRA_RETRIES; bot failures never reach
   * BullMQ's retry (the processor records them and returns). These attempts only cover errors
   * outside a run (say the database away while loading it); their claims count on the row too.
   */
  options: {
    attempts: 3,
    backoff: { type: 'exponential', delay: 2_000 },
    removeOnComplete: { age: 3_600, count: 10_000 },
    removeOnFail: { age: 7 * 24 * 3_600 },
  },
  jobId: ({ executionId }) => executionId,
});

export type ExecutionRunPayload = z.infer<typeof executionRun.schema>;
