/** One log call: structured fields first (pino's order), then the message. */
export interface LogMethod {
  (fields: object, message?: string, ...args: unknown[]): void;
  (message: string, ...args: unknown[]): void;
}

/**
 * The logger every package takes as an argument: the slice of pino's logger botfleet calls.
 * Core only names it, because core does no I/O (ARCHITECTURE.md, "Where each concern lives"); the
 * process creates the real one with `createLogger` in @botfleet/io, and a pino logger fits here.
 */
export interface Logger {
  error: LogMethod;
  warn: LogMethod;
  info: LogMethod;
  debug: LogMethod;
  child(bindings: Record<string, unknown>): Logger;
  isLevelEnabled(level: string): boolean;
}
