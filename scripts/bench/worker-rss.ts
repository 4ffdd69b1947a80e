import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BenchApiClient } from './api-client';
import type { CompletionTracker } from './completion-tracker';

export interface RssReading {
  /** Worker runs done when read (warm-up and measured runs included). */
  runs: number;
  rssMb: number;
  heapUsedMb: number;
}

export interface WorkerRssResult {
  low: RssReading;
  high: RssReading;
  /** Which bot the extra runs used: the catalogue bot, or (--quick) a goto-only bot on its page. */
  bot: 'catalogue' | 'goto-only';
  /** Wall time of the extra runs this phase made. */
  seconds: number;
}

/** A full garbage collection, so a reading shows what is retained rather than when V8 last collected. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('gc');
  if (typeof gc === 'function') (gc as () => void)();
}

function read(runs: number): RssReading {
  collectGarbage();
  const { rss, heapUsed } = process.memoryUsage();
  return { runs, rssMb: Math.round(rss / 1024 / 102.4) / 10, heapUsedMb: Math.round(heapUsed / 1024 / 102.4) / 10 };
}

/**
 * Does the worker's memory grow with the runs it has done? Keeps triggering `botId` until the
 * worker has done `lowRuns`, reads the RSS, then until `highRuns`, and reads it again. The full
 * run uses the catalogue bot; --quick a goto-only bot on the same page, so 200 runs fit in it.
 * The worker runs in this process (with the API, as `npm start` runs its roles), so this is the
 * process's RSS after a full GC; Chromium's processes are not in it.
 */
export async function measureWorkerRss(options: {
  api: BenchApiClient;
  tracker: CompletionTracker;
  botId: string;
  bot: WorkerRssResult['bot'];
  runsSoFar: number;
  lowRuns: number;
  highRuns: number;
  maxInFlight: number;
}): Promise<WorkerRssResult> {
  const started = performance.now();
  let runs = options.runsSoFar;
  // Kept saturated as in the e2e run (maxInFlight triggers unfinished); every run must complete.
  const runUntil = async (target: number) => {
    let next = runs;
    const lane = async () => {
      while (next < target) {
        next++;
        const row = await options.tracker.waitFor(await options.api.trigger(options.botId));
        if (row.status !== 'completed') throw new Error(`execution ${row.id} ended ${row.status}: ${row.error ?? ''}`);
      }
    };
    await Promise.all(Array.from({ length: options.maxInFlight }, lane));
    runs = Math.max(runs, target);
  };
  await runUntil(options.lowRuns);
  const low = read(runs);
  await runUntil(options.highRuns);
  const high = read(runs);
  return { low, high, bot: options.bot, seconds: (performance.now() - started) / 1000 };
}
