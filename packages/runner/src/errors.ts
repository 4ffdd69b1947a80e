/**
 * A recorded step failed (and was not optional). The run ends `failed` at once: a bot failure,
 * never retried.
 */
export class StepFailedError extends Error {
  readonly stepIndex: number;
  /** The step ran out of time because the execution's deadline cut its timeout short. */
  readonly deadlineExceeded: boolean;

  constructor(stepIndex: number, message: string, options: { deadlineExceeded?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StepFailedError';
    this.stepIndex = stepIndex;
    this.deadlineExceeded = options.deadlineExceeded ?? false;
  }
}

/**
 * The browser (not the bot) failed: it crashed, disconnected or could not start. The worker
 * retries these a bounded number of times instead of reporting a bot failure.
 */
export class InfrastructureError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'InfrastructureError';
  }
}

/** The failure message of a run stopped by its hard timeout (the API promises it says so). */
export function executionTimedOutMessage(timeoutMs: number): string {
  return `Execution timed out after ${formatSeconds(timeoutMs)} s`;
}

function formatSeconds(ms: number): string {
  // 2000 -> "2", 1500 -> "1.5": whole seconds stay whole, sub-second budgets stay readable.
  return String(Math.round(ms / 100) / 10);
}
