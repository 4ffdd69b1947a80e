import { listLogMessages, listStepTimings, type PrismaClient } from '@botfleet/db';
import { mean } from './stats';

/** What the worker itself recorded about the measured runs, to set against the bare loop's phases. */
export interface WorkerProfile {
  /** Mean ms of the navigation, from the runner's "Opened <url> in N ms" log line. */
  gotoMs: number;
  /** Mean ms of each recorded step, by index. */
  stepMs: number[];
  /** Mean rows the worker wrote per execution (step outputs + log lines), besides the execution row. */
  rowsPerRun: number;
}

const OPENED = /^Opened .* in (\d+) ms$/;

export async function profileWorkerRuns(db: PrismaClient, executionIds: string[]): Promise<WorkerProfile> {
  const [steps, logs] = await Promise.all([listStepTimings(db, executionIds), listLogMessages(db, executionIds)]);
  const byIndex: number[][] = [];
  for (const step of steps) (byIndex[step.index] ??= []).push(step.durationMs);
  const gotos = logs
    .map((l) => OPENED.exec(l.message)?.[1])
    .filter((m): m is string => m !== undefined)
    .map(Number);
  return {
    gotoMs: mean(gotos),
    stepMs: Array.from(byIndex, (durations) => mean(durations ?? [])),
    rowsPerRun: executionIds.length === 0 ? 0 : (steps.length + logs.length) / executionIds.length,
  };
}
