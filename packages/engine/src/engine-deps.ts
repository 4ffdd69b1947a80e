import type { Logger } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import type { Queues, RedisConnection } from '@botfleet/queue';

/** The limits the engine applies, as the role was configured; each has a documented default. */
export interface EngineSettings {
  /** MAX_PENDING_EXECUTIONS_PER_ORG: triggers past it are refused (default 10,000). */
  maxPendingExecutionsPerOrg?: number;
  /** MAX_RUNNING_EXECUTIONS_PER_ORG: runs going at once per organization (unset: no cap). */
  maxRunningExecutionsPerOrg?: number;
  /** EXECUTION_MAX_INFRA_RETRIES: new attempts after a dead worker or browser (default 3). */
  maxInfraRetries?: number;
}

/**
 * What every lifecycle command is given by its caller (the engine reads no environment): the
 * database it writes in one transaction, the queues it enqueues on after the commit, and the
 * logger that records what the sweepers will repair.
 */
export interface EngineDeps {
  db: PrismaClient;
  queues: Queues;
  logger: Logger;
  settings?: EngineSettings;
}

/** Commands that tell running workers to stop also publish on the cancel channel. */
export interface CancelDeps extends EngineDeps {
  redis: Pick<RedisConnection, 'publish'>;
}
