/** Resource limits of one sandboxed script run. */
export const SANDBOX_LIMITS = {
  defaultMemoryLimitBytes: 64 * 1024 * 1024,
  /**
   * QuickJS's own stack check. Wasm frames run on the worker's V8 stack, which is larger per
   * frame than QuickJS counts; 256 KiB keeps ordinary deep recursion a catchable
   * `InternalError: stack overflow`. Pathological code (e.g. 100k nested parentheses) can still
   * overflow V8 first; that is caught too, and the corrupted Wasm instance is thrown away.
   */
  maxStackBytes: 256 * 1024,
  /**
   * A page call's timeout when the script passes none: the step interpreter's default step
   * timeout, so a generated script waits as long as the steps it was generated from.
   */
  defaultActionTimeoutMs: 15_000,
  maxPendingPageCalls: 32,
  maxSteps: 1_000,
  maxLogLines: 2_000,
  maxLogMessageChars: 10_000,
  /** Largest JSON text handed back into the sandbox from one page call. */
  maxTransferChars: 16 * 1024 * 1024,
  maxErrorMessageChars: 2_000,
  /**
   * The sandbox thread's own interrupt handler stops a script at its deadline and reports
   * (closing its steps, flushing its logs). A thread that has not reported this long after the
   * deadline (stuck in one long built-in call) is terminated.
   */
  hardStopGraceMs: 250,
  /**
   * The sandbox thread's V8 heap (the QuickJS heap is Wasm memory, outside it): code, plus
   * the JSON text of a result or host call argument, which is bounded by the QuickJS heap
   * only between interrupt checks. Twice the QuickJS limit plus this much; beyond it, V8
   * kills the thread, not the worker.
   */
  threadHeapBaseMb: 64,
  threadYoungGenerationMb: 16,
  /** A pre-started sandbox thread not used for this long is stopped. */
  spareThreadIdleMs: 30_000,
} as const;
