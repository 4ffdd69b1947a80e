import { DelayedError, WaitingError, type Job } from 'bullmq';
import type { QueueLookup } from './define-job';

/*
 * The one place that moves a BullMQ job: the engine decides what happens next to a run or a
 * delivery (a JobNextStep), a processor returns that step, and consume() applies it here. Waking
 * a waiting job and dropping a queued one are here too. Nothing outside packages/queue touches
 * BullMQ's Job, DelayedError or WaitingError (ARCHITECTURE.md, "The engine: one home for a run's
 * life").
 */

/**
 * What becomes of the job a processor ran, after trigger.dev's run engine's RetryOutcome. None
 * but `done` uses up one of BullMQ's own attempts: the row in PostgreSQL counts tries, not Redis.
 */
export type JobNextStep =
  /** The job is finished; BullMQ completes it. */
  | { kind: 'done' }
  /** The same work asks again in `ms` (a re-check: a cap, a turn, a busy destination); 0: now. */
  | { kind: 'delay'; ms: number }
  /** Given back to the queue at once, for another worker to take (a shutdown's hand-over). */
  | { kind: 'handBack' }
  /** Tried again as a new attempt in `ms` (a failure the policy retries); 0: now. */
  | { kind: 'retryAttempt'; ms: number };

const NEXT_STEP_KINDS: ReadonlySet<string> = new Set<JobNextStep['kind']>([
  'done',
  'delay',
  'handBack',
  'retryAttempt',
]);

/** Whether a processor's result is a step to apply (other processors return a value of their own). */
export function isJobNextStep(result: unknown): result is JobNextStep {
  if (typeof result !== 'object' || result === null || !('kind' in result)) return false;
  return typeof result.kind === 'string' && NEXT_STEP_KINDS.has(result.kind);
}

/**
 * What a processor is told about the job it runs, instead of BullMQ's Job: its id (a job
 * scheduler's ids carry the slot) and its priority (the fair-share clock).
 */
export interface ConsumedJob {
  readonly id: string | undefined;
  readonly priority: number | undefined;
  /** Earlier attempts of this job (the scheduler counts a tick's lag on its first only). */
  readonly attemptsMade: number;
}

export function consumedJobOf(job: Job<unknown>): ConsumedJob {
  return { id: job.id, priority: job.opts.priority, attemptsMade: job.attemptsMade };
}

/**
 * Applies a processor's step to its active job. Moving a job out of the active set is only
 * complete when the processor then throws BullMQ's DelayedError or WaitingError, which tell the
 * worker not to complete or fail it; `token` is the worker's lock on the job.
 */
export async function applyJobNextStep(job: Job<unknown>, token: string | undefined, step: JobNextStep): Promise<void> {
  switch (step.kind) {
    case 'done':
      return;
    case 'delay':
    case 'retryAttempt':
      if (step.ms > 0) {
        await job.moveToDelayed(Date.now() + step.ms, token);
        throw new DelayedError();
      }
      await job.moveToWait(token);
      throw new WaitingError();
    case 'handBack':
      await job.moveToWait(token);
      throw new WaitingError();
  }
}

/**
 * Promotes a job waiting in the delayed set (a run whose turn came early); true when it did.
 * Between the read and the promote the job may move on by itself: then there was nothing to wake.
 */
export async function promoteDelayedJob<QueueName extends string>(
  queues: QueueLookup<QueueName>,
  definition: { readonly queue: QueueName },
  jobId: string,
): Promise<boolean> {
  const job = await queues.get(definition.queue).getJob(jobId);
  if (!job || !(await job.isDelayed())) return false;
  return job.promote().then(
    () => true,
    () => false,
  );
}

/** Drops a job that is not running (waiting, delayed, or kept after it ended); an active job stays. */
export async function removeJob<QueueName extends string>(
  queues: QueueLookup<QueueName>,
  definition: { readonly queue: QueueName },
  jobId: string,
): Promise<void> {
  await queues.get(definition.queue).remove(jobId);
}
