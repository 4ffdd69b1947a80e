import { BotfleetApiError, BotfleetNetworkError } from '@botfleet/sdk';

/** Why a write key may not change a bot that uses a saved login (docs/sessions.md): its 403, and the editors' notice. */
export const BOT_LOGIN_NOTICE = 'This bot uses a saved login (profile or credential); only an admin key can change it.';
/** Why a write key may not give a bot a saved login. */
export const ATTACH_LOGIN_NOTICE = 'Only an admin key can give a bot a saved login (profile or credential).';

/**
 * The sentence for the 403 of a change to a bot that holds a login, or would be given one, made
 * with a write key: recognised by its `details` (`{ requires: 'admin', because, logins }`), not its
 * wording. Null for any other error.
 */
export function botLoginRefusalOf(error: unknown): string | null {
  if (!isApiError(error, 'forbidden')) return null;
  const details = error.details as { requires?: unknown; because?: unknown } | null | undefined;
  if (details?.requires !== 'admin') return null;
  if (details.because === 'bot_uses_login') return BOT_LOGIN_NOTICE;
  if (details.because === 'change_attaches_login') return ATTACH_LOGIN_NOTICE;
  return null;
}

/** A line a person can act on, from whatever a call threw. */
export function errorMessage(error: unknown): string {
  const loginRefusal = botLoginRefusalOf(error);
  if (loginRefusal) return loginRefusal;
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
