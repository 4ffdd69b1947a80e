import type { PrismaClient } from '@botfleet/db';
import type { BenchApiClient } from './api-client';
import type { CompletionTracker } from './completion-tracker';
import { runE2e } from './e2e-run';
import { BOT_STEPS } from './fixture-site';

/*
 * What keeping evidence costs (capabilities.trace, docs/runs.md): the same catalogue bot
 * end to end with `trace: "off"`, `"onFailure"` (the default: every run records a trace and a run
 * that completes discards it, so this is the recording's cost) and `"always"` (recorded and kept:
 * the recording plus storing the zip), side by side, each with the throughput, the CPU per run
 * (the worker's process and its Chromium) and the trace kept per run.
 */

export const TRACE_MODES = ['off', 'onFailure', 'always'] as const;
export type TraceMode = (typeof TRACE_MODES)[number];

export interface TracingCost {
  mode: TraceMode;
  runs: number;
  runsPerSecond: number;
  /** Node (worker, API, bench client) plus Chromium CPU per run, ms. */
  cpuMsPerRun: number;
  chromiumMsPerRun: number;
  /** Mean size of the trace a run kept, bytes (0 when runs keep none). */
  traceBytesPerRun: number;
}

export async function measureTracingCost(options: {
  api: BenchApiClient;
  tracker: CompletionTracker;
  db: PrismaClient;
  siteUrl: string;
  runs: number;
  maxInFlight: number;
}): Promise<TracingCost[]> {
  const bots = new Map<TraceMode, string>();
  for (const mode of TRACE_MODES)
    bots.set(
      mode,
      await options.api.createBot({
        name: `bench trace ${mode}`,
        targetUrl: options.siteUrl,
        steps: BOT_STEPS,
        capabilities: { trace: mode },
      }),
    );
  const results: TracingCost[] = [];
  // One warm-up run each, then the modes in turn, so none gets a cold browser.
  for (const mode of TRACE_MODES)
    await runE2e({ ...options, botId: bots.get(mode)!, runs: options.maxInFlight, maxInFlight: options.maxInFlight });
  for (const mode of TRACE_MODES) {
    const e2e = await runE2e({ ...options, botId: bots.get(mode)!, runs: options.runs });
    const traces = await options.db.artifact.aggregate({
      where: { executionId: { in: e2e.executionIds }, kind: 'trace' },
      _sum: { bytes: true },
    });
    results.push({
      mode,
      runs: e2e.runs,
      runsPerSecond: e2e.runs / (e2e.windowMs / 1000),
      cpuMsPerRun: (e2e.cpu.nodeMs + e2e.cpu.chromiumMs) / e2e.runs,
      chromiumMsPerRun: e2e.cpu.chromiumMs / e2e.runs,
      traceBytesPerRun: (traces._sum.bytes ?? 0) / e2e.runs,
    });
  }
  return results;
}

export function formatTracingCost(costs: readonly TracingCost[]): string {
  const off = costs.find((c) => c.mode === 'off');
  const lines = ['Tracing cost (capabilities.trace; the same bot end to end, each run completing)'];
  for (const c of costs) {
    const vsOff = off && c !== off ? ` (x${(c.cpuMsPerRun / off.cpuMsPerRun).toFixed(2)} of off)` : '';
    lines.push(
      `  ${c.mode.padEnd(9)} ${c.runsPerSecond.toFixed(2)} runs/s, ${Math.round(c.cpuMsPerRun)} ms CPU per run${vsOff} ` +
        `(Chromium ${Math.round(c.chromiumMsPerRun)} ms), trace kept per run ${(c.traceBytesPerRun / 1024).toFixed(0)} KiB ` +
        `(${c.runs} runs)`,
    );
  }
  return lines.join('\n');
}
