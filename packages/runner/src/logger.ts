/**
 * The slice of a pino logger the runner uses, so callers pass their pino instance and tests can
 * pass nothing (a silent default) without the runner depending on pino's types.
 */
export interface RunnerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const silentLogger: RunnerLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
