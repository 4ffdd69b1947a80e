import type { ArtifactStore } from '@botfleet/artifacts';
import type { ArtifactUrlSettings, Logger, SecretBox } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import type { EngineDeps } from '@botfleet/engine';
import type { FleetMetrics } from '@botfleet/ops';
import type { Queues } from '@botfleet/queue';
import type { AdBlocker, BrowserHost, EgressGuard, OutputLimits, ProxyPool } from '@botfleet/runner';
import type { Cancellations } from './cancellations';

/** What the worker role gives the execution-run processor. */
export interface ExecutionRunProcessorDeps {
  db: PrismaClient;
  queues: Queues;
  logger: Logger;
  browserHost: BrowserHost;
  proxyPool: ProxyPool;
  adBlocker?: AdBlocker;
  egressGuard?: EgressGuard;
  cancellations: Cancellations;
  defaultTimeoutSeconds: number;
  /**
   * MAX_RUNNING_EXECUTIONS_PER_ORG: an organization's runs going at once across the fleet, for
   * organizations the operator gave no cap of their own (unset: no cap).
   */
  maxRunningExecutionsPerOrg?: number;
  /** Signs the screenshot URL of an `execution.failed` event; without it the event's URL is null. */
  artifactUrls?: ArtifactUrlSettings;
  /**
   * Opens credentials and profile states (SECRETS_KEY); without it a run that uses either fails
   * with a message saying so.
   */
  secretBox?: SecretBox;
  /** Where artifacts' content goes (ARTIFACT_STORE); PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
  /**
   * EXECUTION_MAX_INFRA_RETRIES: how many times a run whose worker died or whose browser failed is
   * tried again before it fails with infrastructure_failure (default 3).
   */
  maxInfraRetries?: number;
  /** MAX_STEP_OUTPUT_BYTES and MAX_EXECUTION_OUTPUT_BYTES; the documented defaults when omitted. */
  outputLimits?: OutputLimits;
  /** Counts runs in flight and finished runs; optional so tests can leave it out. */
  metrics?: Pick<FleetMetrics, 'executionsRunning' | 'executionsTotal' | 'executionDuration'>;
  /**
   * Aborted when the worker's drain deadline passes during shutdown: runs still going stop and
   * their jobs go back to the queue (a deploy must never fail a run).
   */
  shutdownSignal?: AbortSignal;
}

/** What the worker gives the engine's run commands: its limits, and how a failure's evidence is kept. */
export type RunEngineDeps = EngineDeps & { artifactUrls?: ArtifactUrlSettings; secretBox?: SecretBox };

/** The run's state changes go through the engine, which applies the running cap and the infrastructure-retry limit. */
export function runEngineDepsOf(deps: ExecutionRunProcessorDeps): RunEngineDeps {
  return {
    db: deps.db,
    queues: deps.queues,
    logger: deps.logger,
    settings: { maxRunningExecutionsPerOrg: deps.maxRunningExecutionsPerOrg, maxInfraRetries: deps.maxInfraRetries },
    artifactUrls: deps.artifactUrls,
    // Seals the failure screenshot of a run that held secret values (docs/security.md).
    secretBox: deps.secretBox,
  };
}
