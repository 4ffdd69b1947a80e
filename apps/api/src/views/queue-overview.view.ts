import type { QueueBacklog } from '@botfleet/db';
import type { QueueOverview } from '../contracts/executions.contract';

/**
 * The queue overview of one organization. The age is measured here, against the same clock as
 * every other elapsed time the API reports (an execution's running duration), and never reads
 * below zero when the database's clock runs slightly ahead of this process's.
 */
export function toQueueOverviewView(backlog: QueueBacklog, workers: number | null, now = Date.now()): QueueOverview {
  const oldest = backlog.oldestPendingAt?.getTime() ?? null;
  return {
    pending: backlog.pending,
    running: backlog.running,
    oldestPendingCreatedAt: oldest,
    oldestPendingAgeMs: oldest === null ? null : Math.max(0, now - oldest),
    workers,
  };
}
