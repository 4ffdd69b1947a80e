export interface WaitUntilOptions {
  /**
   * Fails after this long (default 30 s: generous, because a loaded machine is slow and a wait
   * that succeeds returns as soon as it holds; only a failing test pays the whole deadline).
   */
  timeoutMs?: number;
  /** Pause between probes (default 25 ms). */
  intervalMs?: number;
  /** What the test waits for, named in the timeout error. */
  message?: string;
}

/** What a probe returns while the awaited thing has not happened yet. */
export type NotYet = false | null | undefined;

/**
 * Polls `probe` until it returns something other than false, null or undefined, and returns that
 * value (`true` for a plain condition); fails after the deadline. Tests never sleep a fixed time.
 * A probe that throws fails the wait at once: an error is a bug to see, not a state to wait out.
 */
export async function waitUntil<T>(
  probe: () => T | Promise<T>,
  options: WaitUntilOptions = {},
): Promise<Exclude<T, NotYet>> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== false && value !== null && value !== undefined) return value as Exclude<T, NotYet>;
    if (Date.now() > deadline) {
      throw new Error(`waitUntil timed out after ${timeoutMs} ms: ${options.message ?? 'condition never held'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
