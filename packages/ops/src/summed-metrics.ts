import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Ops } from './ops';

/** One process's metrics as plain data (`Registry.getMetricsAsJSON`), to be sent to another process. */
export type ProcessMetrics = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** This process's metrics as plain data, for the process that serves their sum. */
export function readProcessMetrics(ops: Ops): Promise<ProcessMetrics> {
  return ops.registry.getMetricsAsJSON();
}

/**
 * The Prometheus text of this process's metrics together with other processes' (a launcher's API
 * processes), combined by prom-client's cluster aggregation: each metric by its own `aggregator`,
 * a sum unless it says otherwise (queue depth, read from the one Redis every process shares, is
 * the largest reading; process start time is left out).
 */
export async function sumProcessMetrics(ops: Ops, others: readonly ProcessMetrics[]): Promise<string> {
  const own = await readProcessMetrics(ops);
  return AggregatorRegistry.aggregate([own, ...others]).metrics();
}
