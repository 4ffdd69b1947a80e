import type { BenchApiClient } from './api-client';
import type { CompletionTracker, FinishedExecution } from './completion-tracker';
import { assertCatalogData } from './fixture-site';
import { startCpuMeter, type CpuUse } from './process-tree-cpu';

export interface E2eResult {
  executionIds: string[];
  runs: number;
  maxInFlight: number;
  /** First trigger sent to last completedAt. */
  windowMs: number;
  /**
   * CPU used over the run by Chromium and by this process: the worker, the API serving the
   * triggers, and also the bench's own HTTP client and completion polling.
   */
  cpu: CpuUse;
  /** Per execution: trigger sent (client clock) to the row's completedAt (worker clock: same process). */
  latencyMs: number[];
  /** Where each latency goes, from the row's timestamps. */
  breakdownMs: {
    /** Trigger sent to the row inserted (HTTP, auth, bot and manifest lookups). */
    triggerToCreated: number[];
    /** Row inserted to claimed by a worker (enqueue, waiting behind the runs ahead of it, BullMQ fetch). */
    createdToStarted: number[];
    /** Claimed to completed: the run itself, including the worker's own DB reads and writes. */
    startedToCompleted: number[];
  };
}

/**
 * Triggers `runs` executions over HTTP, keeping at most `maxInFlight` unfinished, and waits for
 * each to complete.
 *
 * Why a bounded window rather than firing everything at once: with all N queued up front,
 * throughput is measured fairly but each latency is mostly time spent waiting behind the rest of
 * the batch (p50 ~ N/2 runs), a number that says more about N than about the system. With at
 * most `concurrency` in flight, every completion leaves a worker slot idle for a whole
 * trigger -> enqueue -> fetch round trip, under-measuring throughput. `2 x concurrency` keeps
 * one job waiting behind each busy slot: the worker never idles for lack of work, and latency
 * is the steady state of a saturated worker (about one run of queueing plus the run).
 */
export async function runE2e(options: {
  api: BenchApiClient;
  tracker: CompletionTracker;
  botId: string;
  runs: number;
  maxInFlight: number;
}): Promise<E2eResult> {
  const cpuUsed = startCpuMeter();
  const finished: Array<{ triggeredAt: number; row: FinishedExecution }> = [];
  let next = 0;
  let firstTrigger = Number.POSITIVE_INFINITY;

  const lane = async () => {
    while (next < options.runs) {
      next++;
      const triggeredAt = Date.now();
      firstTrigger = Math.min(firstTrigger, triggeredAt);
      const executionId = await options.api.trigger(options.botId);
      finished.push({ triggeredAt, row: await options.tracker.waitFor(executionId) });
    }
  };
  await Promise.all(Array.from({ length: options.maxInFlight }, lane));
  const cpu = cpuUsed();

  for (const { row } of finished) {
    if (row.status !== 'completed') throw new Error(`execution ${row.id} ended ${row.status}: ${row.error ?? ''}`);
    assertCatalogData(row.extractedData, `execution ${row.id}`);
  }
  const ms = (d: Date | null) => d?.getTime() ?? Number.NaN;
  const lastCompletion = Math.max(...finished.map(({ row }) => ms(row.completedAt)));
  return {
    executionIds: finished.map(({ row }) => row.id),
    runs: options.runs,
    maxInFlight: options.maxInFlight,
    windowMs: lastCompletion - firstTrigger,
    cpu,
    latencyMs: finished.map(({ triggeredAt, row }) => ms(row.completedAt) - triggeredAt),
    breakdownMs: {
      triggerToCreated: finished.map(({ triggeredAt, row }) => ms(row.createdAt) - triggeredAt),
      createdToStarted: finished.map(({ row }) => ms(row.startedAt) - ms(row.createdAt)),
      startedToCompleted: finished.map(({ row }) => ms(row.completedAt) - ms(row.startedAt)),
    },
  };
}
