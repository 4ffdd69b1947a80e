import { indexSteps } from '@botfleet/core';
import { runExecution, runSteps, type BrowserHost } from '@botfleet/runner';
import { createMemorySession } from '@botfleet/runner/testing';
import { assertCatalogData, BOT_STEPS } from './fixture-site';
import { startCpuMeter, type CpuUse } from './process-tree-cpu';

export interface RunnerLoopResult {
  runs: number;
  /** First run started to last run ended. */
  windowMs: number;
  /** CPU used over the window by this process and by Chromium. */
  cpu: CpuUse;
  /** Each run, runExecution called to returned (context closed). */
  runMs: number[];
}

/**
 * The worker's own run function (runExecution + the step interpreter) with an in-memory
 * session: no queue, no database. It sits between the bare loop and the e2e run, so the gap
 * between bare and e2e splits into "the runner's wrapping" and "queue + database".
 */
export async function runRunnerLoop(options: {
  browserHost: BrowserHost;
  url: string;
  runs: number;
  concurrency: number;
}): Promise<RunnerLoopResult> {
  const steps = indexSteps(BOT_STEPS);
  const durations: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < options.runs) {
      next++;
      const started = performance.now();
      const session = createMemorySession();
      const outcome = await runExecution({
        browserHost: options.browserHost,
        targetUrl: options.url,
        capabilities: {},
        timeoutMs: 60_000,
        session,
        program: (page, guarded) => runSteps(page, steps, guarded),
      });
      if (outcome.status !== 'completed')
        throw new Error(`runner loop: run failed: ${outcome.status === 'cancelled' ? 'cancelled' : outcome.error}`);
      assertCatalogData(outcome.data, 'runner loop');
      durations.push(performance.now() - started);
    }
  };
  const cpuUsed = startCpuMeter();
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return { runs: options.runs, windowMs: performance.now() - started, cpu: cpuUsed(), runMs: durations };
}
