import { BotfleetApiError, BotfleetNetworkError } from '@botfleet/sdk';

/** A line a person can act on, from whatever a call threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof BotfleetApiError) {
    const id = error.status >= 500 && error.requestId ? ` (request ${error.requestId})` : '';
    return `${error.message}${id}`;
  }
  if (error instanceof BotfleetNetworkError) return 'The botfleet API cannot be reached. Try again in a moment.';
  return error instanceof Error ? error.message : String(error);
}

export function isApiError(error: unknown, code: string): error is BotfleetApiError {
  return error instanceof BotfleetApiError && error.code === code;
}

/** The key was refused: revoked, or the session holds a key of another deployment. */
export function isUnauthorized(error: unknown): boolean {
  return error instanceof BotfleetApiError && error.status === 401;
}

export interface UnknownParameter {
  parameter: string;
  suggestion: string | null;
}

/** The details of a 400 `unknown_parameter` (see docs/api.md), when that is what the error is. */
export function unknownParameterOf(error: unknown): UnknownParameter | null {
  if (!isApiError(error, 'unknown_parameter')) return null;
  const details = error.details as { parameter?: unknown; suggestion?: unknown } | null | undefined;
  if (typeof details?.parameter !== 'string') return null;
  return {
    parameter: details.parameter,
    suggestion: typeof details.suggestion === 'string' ? details.suggestion : null,
  };
}

/** Per-field messages of a 400 (`details: [{ path, message }]`), keyed by path. */
export function fieldErrorsOf(error: unknown): Record<string, string> {
  if (!(error instanceof BotfleetApiError) || !Array.isArray(error.details)) return {};
  const out: Record<string, string> = {};
  for (const detail of error.details as unknown[]) {
    const { path, message } = (detail ?? {}) as { path?: unknown; message?: unknown };
    if (typeof path === 'string' && typeof message === 'string') out[path] = message;
  }
  return out;
}
