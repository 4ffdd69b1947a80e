import type { Client } from './generated/client';
import { getExecution } from './generated/sdk.gen';
import type { Execution } from './generated/types.gen';

/** Statuses a run can still leave; every other status is final. */
const IN_FLIGHT = new Set<Execution['status']>(['pending', 'running']);

export interface WaitOptions {
  /** Give up (and throw) after this long; default 5 minutes. */
  timeoutMs?: number;
  /** Time between polls; default 1 s. */
  intervalMs?: number;
}

export class ExecutionWaitTimeout extends Error {
  constructor(
    readonly execution: Execution,
    timeoutMs: number,
  ) {
    super(`Execution ${execution.id} is still ${execution.status} after ${Math.round(timeoutMs / 1000)} s`);
    this.name = 'ExecutionWaitTimeout';
  }
}

/** Polls an execution until it is no longer pending or running, and answers it. */
export async function waitForExecution(
  client: Client,
  executionId: string,
  options: WaitOptions = {},
): Promise<Execution> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const intervalMs = options.intervalMs ?? 1_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { data } = await getExecution({ client, path: { executionId }, throwOnError: true });
    if (!IN_FLIGHT.has(data.status)) return data;
    if (Date.now() >= deadline) throw new ExecutionWaitTimeout(data, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, deadline - Date.now()))));
  }
}
