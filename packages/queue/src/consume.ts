import type { Logger } from '@botfleet/core';
import { UnrecoverableError, Worker, type Job, type WorkerOptions } from 'bullmq';
import type { z } from 'zod';
import type { JobDefinition, PayloadSchema } from './define-job';

/**
 * An app's processor: gets the parsed payload, and the BullMQ job for its id and attempts; the
 * lock token lets it move its own job (e.g. back to delayed, to make room for other work).
 */
export type PayloadProcessor<Payload, Result> = (
  payload: Payload,
  job: Job<unknown>,
  token?: string,
) => Promise<Result>;

export interface ConsumeOptions extends WorkerOptions {
  /** Where consumer errors and dropped jobs are reported. */
  logger: Logger;
}

/**
 * The BullMQ processor for a declared job: parses the payload again (the producer did too, but
 * Redis can hold anything) and fails a garbage job at once with UnrecoverableError, since no
 * retry can make it valid.
 */
export function processorFor<Schema extends PayloadSchema, Result>(
  definition: JobDefinition<string, string, Schema>,
  processor: PayloadProcessor<z.output<Schema>, Result>,
  logger: Logger,
): (job: Job<unknown>, token?: string) => Promise<Result> {
  return async (job, token) => {
    const payload = definition.schema.safeParse(job.data);
    if (!payload.success) {
      logger.error({ jobId: job.id, job: definition.name }, 'job with an invalid payload dropped');
      throw new UnrecoverableError(`invalid ${definition.name} payload`);
    }
    return processor(payload.data, job, token);
  };
}

/** A BullMQ worker consuming a declared job's queue with `processor`; stop it with stopWorker. */
export function consume<Schema extends PayloadSchema, Result>(
  definition: JobDefinition<string, string, Schema>,
  options: ConsumeOptions,
  processor: PayloadProcessor<z.output<Schema>, Result>,
): Worker<unknown, Result> {
  const { logger, ...workerOptions } = options;
  const worker = new Worker<unknown, Result>(
    definition.queue,
    processorFor(definition, processor, logger),
    workerOptions,
  );
  // An unhandled 'error' event would crash the process; Redis blips are logged and retried.
  worker.on('error', (err) =>
    logger.error({ err: err.message, queue: definition.queue }, `${definition.name} consumer error`),
  );
  return worker;
}
