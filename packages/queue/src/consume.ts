import { repeatedLog, type Logger } from '@botfleet/core';
import { UnrecoverableError, Worker, type Job, type WorkerOptions } from 'bullmq';
import type { z } from 'zod';
import type { JobDefinition, PayloadSchema } from './define-job';
import { applyJobNextStep, consumedJobOf, isJobNextStep, type ConsumedJob, type JobNextStep } from './job-moves';

/**
 * An app's processor: gets the parsed payload and what it needs to know of its job. A processor
 * whose job may do something other than complete returns the engine's JobNextStep, which consume
 * applies (job-moves.ts); any other result is the job's return value.
 */
export type PayloadProcessor<Payload, Result> = (payload: Payload, job: ConsumedJob) => Promise<Result>;

export interface ConsumeOptions extends WorkerOptions {
  /** Where consumer errors and dropped jobs are reported. */
  logger: Logger;
}

/** What BullMQ keeps as a job's return value: a step is applied, not kept. */
export type ConsumedResult<Result> = Exclude<Result, JobNextStep> | undefined;

/**
 * The BullMQ processor for a declared job: parses the payload again (the producer did too, but
 * Redis can hold anything) and fails a garbage job at once with UnrecoverableError, since no
 * retry can make it valid; then runs the processor and applies the step it returns.
 */
export function processorFor<Schema extends PayloadSchema, Result>(
  definition: JobDefinition<string, string, Schema>,
  processor: PayloadProcessor<z.output<Schema>, Result>,
  logger: Logger,
): (job: Job<unknown>, token?: string) => Promise<ConsumedResult<Result>> {
  return async (job, token) => {
    const payload = definition.schema.safeParse(job.data);
    if (!payload.success) {
      logger.error({ jobId: job.id, job: definition.name }, 'job with an invalid payload dropped');
      throw new UnrecoverableError(`invalid ${definition.name} payload`);
    }
    const result = await processor(payload.data, consumedJobOf(job));
    if (!isJobNextStep(result)) return result as ConsumedResult<Result>;
    await applyJobNextStep(job, token, result);
    return undefined;
  };
}

/** A BullMQ worker consuming a declared job's queue with `processor`; stop it with stopWorker. */
export function consume<Schema extends PayloadSchema, Result>(
  definition: JobDefinition<string, string, Schema>,
  options: ConsumeOptions,
  processor: PayloadProcessor<z.output<Schema>, Result>,
): Worker<unknown, ConsumedResult<Result>> {
  const { logger, ...workerOptions } = options;
  const worker = new Worker<unknown, ConsumedResult<Result>>(
    definition.queue,
    processorFor(definition, processor, logger),
    workerOptions,
  );
  // An unhandled 'error' event would crash the process; Redis blips are logged and retried. A
  // consumer that cannot work (CROSSSLOT, MOVED, a replica) errors on every poll: one line per 10 s.
  const health: ConsumerHealth = { queue: definition.queue, lastError: null };
  consumerHealth.set(worker, health);
  worker.on('error', (err) => {
    health.lastError = { at: Date.now(), message: err.message };
    repeatedLog.error(logger, { err: err.message, queue: definition.queue }, `${definition.name} consumer error`);
  });
  // BullMQ emits these only after a poll that worked: the consumer is working again.
  for (const progress of ['active', 'completed', 'failed', 'drained'] as const)
    worker.on(progress, () => (health.lastError = null));
  return worker;
}

/**
 * How long a consumer's error keeps it unready unless it takes, finishes or finds no job first:
 * longer than BullMQ's pause between failing polls, short enough that a one-off error is soon
 * forgotten.
 */
export const CONSUMER_ERROR_WINDOW_MS = 15_000;

interface ConsumerHealth {
  queue: string;
  lastError: { at: number; message: string } | null;
}

const consumerHealth = new WeakMap<Worker, ConsumerHealth>();

/**
 * Readiness of a consumer built by `consume`: it fails while the consumer's polls fail (an error
 * within CONSUMER_ERROR_WINDOW_MS and no poll that worked since). Connection errors are not among
 * them (BullMQ retries those quietly): the connection's own check covers a Redis that is away.
 */
export async function consumerReady(worker: Worker): Promise<void> {
  const health = consumerHealth.get(worker);
  if (!health) throw new Error('not a consumer built by consume()');
  const { lastError } = health;
  if (lastError && Date.now() - lastError.at < CONSUMER_ERROR_WINDOW_MS)
    throw new Error(`the ${health.queue} consumer's polls fail: ${lastError.message}`);
}
