import type { BareLoopResult } from './bare-loop';
import type { E2eResult } from './e2e-run';
import { addCpu } from './process-tree-cpu';
import type { RunnerLoopResult } from './runner-loop';

export interface Measurements {
  bare: BareLoopResult;
  runner: RunnerLoopResult;
  e2e: E2eResult;
}

/** One round of each measurement, `runs` runs each, in this order. */
export type RunRound = (runs: number, round: number) => Promise<Measurements>;

/** `total` split into `rounds` near-equal positive parts. */
export function splitRuns(total: number, rounds: number): number[] {
  const count = Math.max(1, Math.min(rounds, total));
  return Array.from({ length: count }, (_, i) => Math.floor(total / count) + (i < total % count ? 1 : 0));
}

/**
 * Runs the measurements in rounds and merges them: runs and windows add up, samples concatenate,
 * so throughput is total runs over total measured time. With one round this is exactly
 * "N / (last completion - first trigger)". On a machine shared with other people's tests, more
 * rounds interleave the sides, so a burst of outside load hits all of them rather than one.
 */
export async function runRounds(total: number, rounds: number, runRound: RunRound): Promise<Measurements> {
  const results: Measurements[] = [];
  for (const [round, runs] of splitRuns(total, rounds).entries()) results.push(await runRound(runs, round));
  return results.reduce((a, b) => ({
    bare: {
      runs: a.bare.runs + b.bare.runs,
      windowMs: a.bare.windowMs + b.bare.windowMs,
      cpu: addCpu(a.bare.cpu, b.bare.cpu),
      runMs: [...a.bare.runMs, ...b.bare.runMs],
      phasesMs: {
        newContext: [...a.bare.phasesMs.newContext, ...b.bare.phasesMs.newContext],
        newPage: [...a.bare.phasesMs.newPage, ...b.bare.phasesMs.newPage],
        goto: [...a.bare.phasesMs.goto, ...b.bare.phasesMs.goto],
        extract: [...a.bare.phasesMs.extract, ...b.bare.phasesMs.extract],
        close: [...a.bare.phasesMs.close, ...b.bare.phasesMs.close],
      },
    },
    runner: {
      runs: a.runner.runs + b.runner.runs,
      windowMs: a.runner.windowMs + b.runner.windowMs,
      cpu: addCpu(a.runner.cpu, b.runner.cpu),
      runMs: [...a.runner.runMs, ...b.runner.runMs],
    },
    e2e: {
      executionIds: [...a.e2e.executionIds, ...b.e2e.executionIds],
      runs: a.e2e.runs + b.e2e.runs,
      maxInFlight: a.e2e.maxInFlight,
      windowMs: a.e2e.windowMs + b.e2e.windowMs,
      cpu: addCpu(a.e2e.cpu, b.e2e.cpu),
      latencyMs: [...a.e2e.latencyMs, ...b.e2e.latencyMs],
      breakdownMs: {
        triggerToCreated: [...a.e2e.breakdownMs.triggerToCreated, ...b.e2e.breakdownMs.triggerToCreated],
        createdToStarted: [...a.e2e.breakdownMs.createdToStarted, ...b.e2e.breakdownMs.createdToStarted],
        startedToCompleted: [...a.e2e.breakdownMs.startedToCompleted, ...b.e2e.breakdownMs.startedToCompleted],
      },
    },
  }));
}
