import { followExecutionEvents } from './follow-events';
import type { Client } from './generated/client';
import { getExecution } from './generated/sdk.gen';
import type { Execution } from './generated/types.gen';

/** Statuses a run can still leave; every other status is final. */
const IN_FLIGHT = new Set<Execution['status']>(['pending', 'running']);

export interface WaitOptions {
  /** Give up (and throw) after this long; default 5 minutes. */
  timeoutMs?: number;
  /** Stops waiting early (the call then throws ExecutionWaitTimeout with the run as it stands). */
  signal?: AbortSignal;
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

/**
 * Waits for an execution to be no longer pending or running, and answers it. It follows the run's
 * event stream (one connection, resumed if it drops) rather than polling.
 */
export async function waitForExecution(
  client: Client,
  executionId: string,
  options: WaitOptions = {},
): Promise<Execution> {
  const timeoutMs = options.timeoutMs ?? 300_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let last: Execution | undefined;
  for await (const event of followExecutionEvents(client, executionId, { signal })) {
    if (event.event === 'status') last = event.data;
    // The final status precedes the end.
    if (event.event === 'end' && last && !IN_FLIGHT.has(last.status)) return last;
  }
  // Stopped by the deadline (or the caller): the run as it stands now.
  const { data } = await getExecution({ client, path: { executionId }, throwOnError: true });
  if (!IN_FLIGHT.has(data.status)) return data;
  throw new ExecutionWaitTimeout(data, timeoutMs);
}
