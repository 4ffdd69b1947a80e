import { collectDefaultMetrics, Registry } from 'prom-client';
import { createFleetMetrics, type FleetMetrics } from './fleet-metrics';
import { createQueueDepth, type WatchedQueue } from './queue-depth';
import { createReadiness, type Readiness } from './readiness';

/**
 * A process's operational state, shared by every role it runs: one metrics registry (with the
 * standard process_* and nodejs_* metrics), the botfleet_* metrics, the queues reported on
 * /metrics and the readiness checks. The launcher makes one and hands it to each role; a role
 * started without one (tests) makes its own.
 */
export interface Ops {
  readonly registry: Registry;
  readonly metrics: FleetMetrics;
  readonly readiness: Readiness;
  /** Reports these queues' depth and oldest waiting job; returns how to stop reporting them. */
  watchQueues(queues: readonly WatchedQueue[]): () => void;
}

export function createOps(): Ops {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const depth = createQueueDepth(registry);
  return {
    registry,
    metrics: createFleetMetrics(registry),
    readiness: createReadiness(),
    watchQueues: depth.watch,
  };
}
