import type { Logger } from './logger-interface';

/** At most one line per message in this long; the lines folded in between are counted. */
export const REPEATED_LOG_WINDOW_MS = 10_000;

type Level = 'error' | 'warn';

interface Window {
  /** Lines folded into the window since its line was written. */
  folded: number;
  logger: Logger;
  level: Level;
  fields: Record<string, unknown>;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Logs errors that may repeat in a tight loop (a consumer polling a Redis that answers CROSSSLOT,
 * a connection retrying every few milliseconds) at most once per window per message: the first
 * line goes out at once; repeats inside the window are only counted, and when the window ends
 * with any, one line says how many (`repeated`) and a new window starts. A message is the log
 * message together with the error's text, so two different errors are never folded into one.
 */
export class RepeatedLog {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly windowMs = REPEATED_LOG_WINDOW_MS) {}

  warn(logger: Logger, fields: { err?: string } & Record<string, unknown>, message: string): void {
    this.log(logger, 'warn', fields, message);
  }

  error(logger: Logger, fields: { err?: string } & Record<string, unknown>, message: string): void {
    this.log(logger, 'error', fields, message);
  }

  private log(logger: Logger, level: Level, fields: { err?: string } & Record<string, unknown>, message: string) {
    const key = `${level}\u0000${message}\u0000${fields.err ?? ''}`;
    const open = this.windows.get(key);
    if (open) {
      open.folded += 1;
      // The summary carries the latest context (queue, attempt) with the count.
      Object.assign(open, { logger, fields });
      return;
    }
    logger[level](fields, message);
    this.openWindow(key, { logger, level, fields, message });
  }

  private openWindow(
    key: string,
    line: { logger: Logger; level: Level; fields: Record<string, unknown>; message: string },
  ) {
    const timer = setTimeout(() => {
      const window = this.windows.get(key)!;
      this.windows.delete(key);
      if (window.folded === 0) return;
      window.logger[window.level]({ ...window.fields, repeated: window.folded }, line.message);
      this.openWindow(key, { ...line, logger: window.logger, fields: window.fields });
    }, this.windowMs);
    // A quiet process must still be able to exit: the summary of a last burst is not worth waiting for.
    timer.unref();
    this.windows.set(key, { folded: 0, logger: line.logger, level: line.level, fields: line.fields, timer });
  }
}

/** The process's one RepeatedLog: "at most once per 10 s per process and message". */
export const repeatedLog = new RepeatedLog();
