import { withTimeout } from '@botfleet/core';
import type { JobsOptions, Queue } from 'bullmq';
import type { z } from 'zod';

/** A job payload: ids only, never entities or secrets; the row in PostgreSQL is the truth. */
export type PayloadSchema = z.ZodType<object>;

/** Where a job's queue is found by name: `Queues`, or any stand-in that hands out that queue. */
export interface QueueLookup<QueueName extends string> {
  get(name: QueueName): Queue;
}

/** What one enqueue may override; the job id always comes from the declaration's rule. */
export type JobOverrides = Omit<JobsOptions, 'jobId'>;

/** Arguments after the payload: the id key when the job has one, then overrides. */
export type EnqueueArgs<Key> = [Key] extends [void] ? [overrides?: JobOverrides] : [key: Key, overrides?: JobOverrides];
export type JobIdArgs<Key> = [Key] extends [void] ? [] : [key: Key];

export interface JobSpec<Name extends string, QueueName extends string, Schema extends PayloadSchema> {
  /** Dotted name, e.g. `execution.run`; also the BullMQ job name. */
  name: Name;
  queue: QueueName;
  schema: Schema;
  /** Defaults for every job of this kind (attempts, backoff, retention). */
  options: JobsOptions;
}

/** A declared job: what producers and consumers agree on, in one place. */
export interface JobDefinition<Name extends string, QueueName extends string, Schema extends PayloadSchema> {
  readonly name: Name;
  readonly queue: QueueName;
  readonly schema: Schema;
  readonly options: Readonly<JobsOptions>;
}

/** A declared job that producers add themselves (rather than a BullMQ job scheduler). */
export interface EnqueueableJob<
  Name extends string,
  QueueName extends string,
  Schema extends PayloadSchema,
  Key = void,
> extends JobDefinition<Name, QueueName, Schema> {
  /** The id the declaration's rule gives this payload's job (to look the job up in its queue). */
  jobIdOf(payload: z.input<Schema>, ...key: JobIdArgs<Key>): string;
  /** Parses the payload (a bad one throws before anything reaches Redis) and adds the job. */
  enqueue(queues: QueueLookup<QueueName>, payload: z.input<Schema>, ...args: EnqueueArgs<Key>): Promise<void>;
  /**
   * Parses every payload first (one bad payload adds nothing), then adds all jobs in one BullMQ
   * `addBulk` (one Redis round trip), each with its own overrides and the same id key.
   */
  enqueueBulk(
    queues: QueueLookup<QueueName>,
    jobs: { payload: z.input<Schema>; overrides?: JobOverrides }[],
    ...key: JobIdArgs<Key>
  ): Promise<void>;
}

const ENQUEUE_TIMEOUT_MS = 3_000;

/** BullMQ forbids ':' in custom job ids; our ids never contain one, but guard the invariant. */
function assertJobId(jobId: string): void {
  if (jobId.includes(':')) throw new Error(`job id must not contain ':' (${jobId})`);
}

/*
 * The job-id rule. Ids derive from the row, so adding the same job twice while the first is
 * still in Redis is a no-op (safe re-enqueue). A row with several jobs over time (a delivery's
 * attempts) declares an `idKey` schema for what tells them apart; the rule gets it parsed.
 */

/** Declares a job with several jobs per row, told apart by a key (e.g. the attempt number). */
export function defineJob<
  Name extends string,
  QueueName extends string,
  Schema extends PayloadSchema,
  KeySchema extends z.ZodType<object>,
>(
  spec: JobSpec<Name, QueueName, Schema> & {
    idKey: KeySchema;
    jobId: (payload: z.output<Schema>, key: z.output<KeySchema>) => string;
  },
): EnqueueableJob<Name, QueueName, Schema, z.input<KeySchema>>;
/** Declares a job with one job per row. */
export function defineJob<Name extends string, QueueName extends string, Schema extends PayloadSchema>(
  spec: JobSpec<Name, QueueName, Schema> & { jobId: (payload: z.output<Schema>) => string },
): EnqueueableJob<Name, QueueName, Schema>;
/** Declares a job that only a BullMQ job scheduler produces (BullMQ picks its ids). */
export function defineJob<Name extends string, QueueName extends string, Schema extends PayloadSchema>(
  spec: JobSpec<Name, QueueName, Schema>,
): JobDefinition<Name, QueueName, Schema>;
export function defineJob<Name extends string, QueueName extends string, Schema extends PayloadSchema>(
  spec: JobSpec<Name, QueueName, Schema> & {
    idKey?: z.ZodType<object>;
    jobId?: (payload: z.output<Schema>, key: object) => string;
  },
): JobDefinition<Name, QueueName, Schema> | EnqueueableJob<Name, QueueName, Schema, object> {
  const definition: JobDefinition<Name, QueueName, Schema> = Object.freeze({
    name: spec.name,
    queue: spec.queue,
    schema: spec.schema,
    options: Object.freeze({ ...spec.options }),
  });
  const { jobId: rule, idKey } = spec;
  if (!rule) return definition;

  /** Splits what follows the payload: a keyed job always gets its key first. */
  const split = (args: unknown[]): { key: object; overrides: JobOverrides } =>
    idKey
      ? { key: idKey.parse(args[0]), overrides: (args[1] as JobOverrides | undefined) ?? {} }
      : { key: {}, overrides: (args[0] as JobOverrides | undefined) ?? {} };

  return Object.freeze({
    ...definition,
    jobIdOf: (payload: z.input<Schema>, ...key: unknown[]) => rule(spec.schema.parse(payload), split(key).key),
    async enqueue(queues: QueueLookup<QueueName>, payload: z.input<Schema>, ...args: unknown[]): Promise<void> {
      const { key, overrides } = split(args);
      const data = spec.schema.parse(payload);
      const jobId = rule(data, key);
      assertJobId(jobId);
      const options: JobsOptions = { ...spec.options, ...overrides, jobId };
      // Delays computed from due times may be fractional or already past; BullMQ wants whole ms >= 0.
      if (options.delay !== undefined) options.delay = Math.max(0, Math.round(options.delay));
      // BullMQ waits for a connection that is down instead of failing; a producer must not hang.
      await withTimeout(
        queues.get(spec.queue).add(spec.name, data, options),
        ENQUEUE_TIMEOUT_MS,
        `Redis did not accept the ${spec.name} job within ${ENQUEUE_TIMEOUT_MS} ms`,
      );
    },
    async enqueueBulk(
      queues: QueueLookup<QueueName>,
      bulk: { payload: z.input<Schema>; overrides?: JobOverrides }[],
      ...keyArgs: unknown[]
    ): Promise<void> {
      if (bulk.length === 0) return;
      const { key } = split(keyArgs);
      const jobs = bulk.map(({ payload, overrides }) => {
        const data = spec.schema.parse(payload);
        const jobId = rule(data, key);
        assertJobId(jobId);
        const opts: JobsOptions = { ...spec.options, ...overrides, jobId };
        if (opts.delay !== undefined) opts.delay = Math.max(0, Math.round(opts.delay));
        return { name: spec.name, data, opts };
      });
      await withTimeout(
        queues.get(spec.queue).addBulk(jobs),
        ENQUEUE_TIMEOUT_MS,
        `Redis did not accept ${jobs.length} ${spec.name} jobs within ${ENQUEUE_TIMEOUT_MS} ms`,
      );
    },
  });
}
