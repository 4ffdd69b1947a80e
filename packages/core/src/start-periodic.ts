import type { Logger } from './logger-interface';

export interface PeriodicOptions {
  /** What the task is, for logs: `${name} failed`. */
  name: string;
  /** Pause between the end of one pass and the start of the next. */
  intervalMs: number;
  /** Run the first pass at once rather than after one interval. */
  runAtStart?: boolean;
  logger: Logger;
}

export interface PeriodicTask {
  /** Runs a pass now, or joins the one in flight; resolves when it ends (failures are logged, never thrown). */
  runNow(): Promise<void>;
  /** No more passes; resolves once the pass in flight, if any, has ended. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Runs `pass` every `intervalMs`, one pass at a time: a slow pass (Redis or the database down)
 * must not pile up behind itself. A failed pass is logged and the next one comes on schedule.
 * The signal aborts on stop, so a long pass can end early instead of holding up shutdown.
 */
export function startPeriodic(options: PeriodicOptions, pass: (signal: AbortSignal) => Promise<unknown>): PeriodicTask {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | null = null;
  let stopped: Promise<void> | undefined;

  function runNow(): Promise<void> {
    if (stopping.signal.aborted) return inFlight ?? Promise.resolve();
    inFlight ??= (async () => {
      try {
        await pass(stopping.signal);
      } catch (err) {
        options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, `${options.name} failed`);
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  }

  function scheduleNext(delayMs: number): void {
    if (stopping.signal.aborted) return;
    timer = setTimeout(() => void runNow().then(() => scheduleNext(options.intervalMs)), delayMs);
    // A maintenance loop alone never keeps a process alive.
    timer.unref();
  }

  if (options.runAtStart) void runNow().then(() => scheduleNext(options.intervalMs));
  else scheduleNext(options.intervalMs);
  return {
    runNow,
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        clearTimeout(timer);
        await inFlight;
      })();
      return stopped;
    },
  };
}
