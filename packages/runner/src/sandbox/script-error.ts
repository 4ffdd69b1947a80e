/** Why a sandboxed script failed. */
export type ScriptFailure = 'error' | 'timeout' | 'memory' | 'crash' | 'invalid';

/**
 * A failure of a user script (never of the worker). The worker reports `message` as the
 * execution's error and does not retry: running the same script again would fail the same way.
 */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';

  constructor(
    readonly reason: ScriptFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static thrown(message: string): ScriptError {
    return new ScriptError('error', `Script error: ${message}`);
  }

  static timedOut(budgetMs: number): ScriptError {
    return new ScriptError('timeout', `Script timed out after ${Math.max(0, Math.round(budgetMs))} ms`);
  }

  /** `cause`: set when the sandbox thread was killed for its heap (ERR_WORKER_OUT_OF_MEMORY). */
  static outOfMemory(cause?: unknown): ScriptError {
    return new ScriptError('memory', 'Script exceeded its memory limit', cause === undefined ? undefined : { cause });
  }
}
