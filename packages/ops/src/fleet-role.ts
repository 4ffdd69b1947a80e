import {
  CONFIG_DEFAULTS,
  defineRole,
  repeatedLog,
  settlesWithin,
  startPeriodic,
  type Logger,
  type PeriodicOptions,
  type PeriodicTask,
  type RedisSettings,
  type Role,
  type RoleDefinition,
  type RoleHandleOf,
} from '@botfleet/core';
import { pingDatabase, type PrismaClient } from '@botfleet/db';
import {
  closeRedis,
  consume,
  consumerReady,
  createQueues,
  createRedisConnection,
  queueSlotReady,
  stopWorker,
  type ConsumeOptions,
  type JobDefinition,
  type PayloadSchema,
  type QueueName,
  type Queues,
  type RedisConnection,
  type RedisConnectionKind,
  type StopWorkerOptions,
} from '@botfleet/queue';
import { createOps, type Ops } from './ops';
import type { ReadinessCheck } from './readiness';

/** The options every role takes, under one name each; a role's own options extend these. */
export interface FleetRoleOptions {
  db: PrismaClient;
  /** How to reach Redis (REDIS_*, parsed once). */
  redis: RedisSettings;
  queuePrefix: string;
  logger: Logger;
  /** The process's metrics and readiness checks (the launcher's); a private set when omitted. */
  ops?: Ops;
  /**
   * How long stop() gives work in flight (jobs, periodic passes, the api's open requests) before
   * it closes anyway; CONFIG_DEFAULTS.fixed.drainMs of the role when omitted.
   */
  drainTimeoutMs?: number;
}

/** How a role consumes one job, beyond what every consumer shares (connection, prefix, logger). */
export interface RoleConsumerOptions extends Omit<ConsumeOptions, 'connection' | 'prefix' | 'logger'> {
  /** Logged when jobs are still in flight once the drain is over. */
  abandonedMessage: string;
  /** Ends the jobs in flight at the drain deadline (the worker hands its runs back); see stopWorker. */
  onDrainDeadline?: StopWorkerOptions['onDrainDeadline'];
}

// Any consumer, whatever its job's result: what stopWorker and consumerReady take.
type Consumer = Parameters<typeof stopWorker>[0];

type QueueConnectionKind = Extract<RedisConnectionKind, 'producer' | 'worker'>;

/** What a role's start gets from the base to build what is its own. */
export interface RoleScope {
  /** The options' logger, naming the role. */
  readonly logger: Logger;
  readonly ops: Ops;
  /** Every queue, on the role's queue connection (closed by the base). */
  readonly queues: Queues;
  /** The queues' connection, for what else the role sends to Redis (the api's stream slots). */
  readonly redis: RedisConnection;
  readonly drainTimeoutMs: number;
  /**
   * Consumes a declared job on a worker connection; the base checks it for readiness, reports its
   * queue and drains it on stop.
   */
  readonly consume: <Schema extends PayloadSchema, Result>(
    definition: JobDefinition<string, QueueName, Schema>,
    options: RoleConsumerOptions,
    processor: Parameters<typeof consume<Schema, Result>>[2],
  ) => ReturnType<typeof consume<Schema, Result>>;
  /** Starts a periodic pass (a sweeper, the reconcile loop); the base winds it down on stop. */
  readonly every: (
    options: Omit<PeriodicOptions, 'logger'> & { logger?: Logger },
    pass: Parameters<typeof startPeriodic>[1],
  ) => PeriodicTask;
  /** Adds a readiness check of the role's own (the worker's browser); removed when it stops. */
  readonly ready: (name: string, check: ReadinessCheck) => void;
}

/** What a role's start returns: what the base cannot do for it. */
export interface RoleParts<Extras extends object> {
  /** The handle's extras (the api's port, the scheduler's reconcileNow). */
  extras?: Extras;
  /** Stops the role's own intake (the api's server); the base bounds it by the drain time. */
  drain?(): Promise<void>;
  /** Releases the role's own resources once drained, before its queues and Redis close. */
  close?(): Promise<void> | void;
  /** Fields of the "started" log line. */
  startedLog?: Record<string, unknown>;
}

export interface FleetRoleSpec<Options extends FleetRoleOptions, Extras extends object> {
  name: Role;
  /**
   * The kind of connection its queues use: `producer` fails a call fast while Redis is away (the
   * caller retries), `worker` waits for Redis (a retry scheduled during a blip is not lost).
   * Consumers always get a `worker` connection, this one when it is of that kind.
   */
  queueConnection: QueueConnectionKind;
  /** The queues this role's /metrics reports; the ones it consumes when omitted. */
  reportedQueues?: readonly QueueName[];
  start(scope: RoleScope, options: Options): Promise<RoleParts<Extras>>;
}

/**
 * Declares a role on one lifecycle, as BullMQ's QueueBase does for its classes: the base opens and
 * logs the Redis connections, makes the queues, consumes, adds readiness (database and Redis for a
 * role that consumes), reports queue depth, and stops in one order: unready, drain everything in
 * flight under one deadline, the role's own resources, queues, Redis, then the passes that
 * outlived the deadline (they fail at once on the closed connections), so nothing of the role logs
 * after "stopped". Each role declares only what differs (docs/operations.md, shutdown order).
 */
export function defineFleetRole<Options extends FleetRoleOptions, Extras extends object = object>(
  spec: FleetRoleSpec<Options, Extras>,
): RoleDefinition<Options, RoleHandleOf<Extras & { stop(): Promise<void> }>> {
  const { name } = spec;
  return defineRole({
    name,
    async start(options: Options) {
      const logger = options.logger.child({ role: name });
      const ops = options.ops ?? createOps();
      const drainTimeoutMs = options.drainTimeoutMs ?? CONFIG_DEFAULTS.fixed.drainMs[name];
      const connections: RedisConnection[] = [];
      const connect = (kind: QueueConnectionKind) => {
        const connection = createRedisConnection(options.redis, kind);
        connection.on('error', (err: Error) =>
          repeatedLog.warn(logger, { connection: kind, err: err.message }, 'redis connection error'),
        );
        connections.push(connection);
        return connection;
      };
      const queueConnection = connect(spec.queueConnection);
      let consumerConnection: RedisConnection | undefined =
        spec.queueConnection === 'worker' ? queueConnection : undefined;
      const queues = createQueues(queueConnection, options.queuePrefix);
      const consumers: ({ worker: Consumer; queue: QueueName } & Pick<
        RoleConsumerOptions,
        'abandonedMessage' | 'onDrainDeadline'
      >)[] = [];
      const passes: PeriodicTask[] = [];
      const unready: (() => void)[] = [];

      const scope: RoleScope = {
        logger,
        ops,
        queues,
        redis: queueConnection,
        drainTimeoutMs,
        consume: (definition, { abandonedMessage, onDrainDeadline, ...workerOptions }, processor) => {
          consumerConnection ??= connect('worker');
          const worker = consume(
            definition,
            { ...workerOptions, connection: consumerConnection, prefix: options.queuePrefix, logger },
            processor,
          );
          consumers.push({ worker, queue: definition.queue, abandonedMessage, onDrainDeadline });
          return worker;
        },
        every: (periodicOptions, pass) => {
          const task = startPeriodic({ logger, ...periodicOptions }, pass);
          passes.push(task);
          return task;
        },
        ready: (checkName, check) => {
          unready.push(ops.readiness.add(checkName, check));
        },
      };
      const parts = await spec.start(scope, options);

      if (consumers.length > 0) {
        // A role that consumes works only while its database and, on every connection, the
        // scripts over its queues' keys answer, and its consumers' polls work. (The api's app adds
        // its own checks: it serves /readyz on its port too.)
        scope.ready('database', () => pingDatabase(options.db));
        scope.ready('redis', () =>
          Promise.all(
            consumers.flatMap(({ worker, queue }) => [
              ...connections.map((connection) => queueSlotReady(connection, options.queuePrefix, queue)),
              consumerReady(worker),
            ]),
          ),
        );
      }
      const reported = spec.reportedQueues ?? consumers.map(({ queue }) => queue);
      const unwatch = ops.watchQueues([...new Set(reported)].map((queue) => queues.get(queue)));
      logger.info({ queuePrefix: options.queuePrefix, ...parts.startedLog }, `${name} started`);

      const windDownPasses = () => Promise.all(passes.map((pass) => settlesWithin(pass.stop(), drainTimeoutMs)));
      return {
        ...(parts.extras as Extras),
        async stop() {
          for (const remove of unready) remove();
          // Everything in flight winds down at once, under the one deadline: a consumer's jobs
          // (a job cut off keeps its lock or lease, and is recovered elsewhere), a pass in flight
          // (it waits on Redis, which may be away), the role's own intake.
          await Promise.all([
            Promise.all(
              consumers.map(async ({ worker, abandonedMessage, onDrainDeadline }) => {
                const ended = await stopWorker(worker, drainTimeoutMs, { onDrainDeadline });
                if (!ended) logger.warn({ drainTimeoutMs }, abandonedMessage);
              }),
            ),
            windDownPasses(),
            parts.drain && settlesWithin(parts.drain(), drainTimeoutMs),
          ]);
          unwatch();
          await parts.close?.();
          await settlesWithin(queues.close(), drainTimeoutMs);
          await Promise.all(connections.map((connection) => closeRedis(connection)));
          await windDownPasses();
          logger.info(`${name} stopped`);
        },
      };
    },
  });
}
