export interface WaitUntilOptions {
  timeoutMs?: number;
  intervalMs?: number;
  message?: string;
}

/** Polls a condition until it holds or the deadline passes: tests never sleep a fixed time. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, options: WaitUntilOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`waitUntil timed out: ${options.message ?? 'condition never held'}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 25));
  }
}
