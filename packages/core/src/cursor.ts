import { AppError } from './errors';

/** Position after the last item of a page, for keyset pagination ordered by (createdAt, id) desc. */
export interface KeysetCursor {
  createdAt: number;
  id: string;
}

export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

/** Decodes a cursor from a query string; anything malformed is a 400 naming `cursor`. */
export function decodeCursor(value: string): KeysetCursor {
  const invalid = () => new AppError('validation_error', 'Invalid cursor', [{ path: 'cursor', message: 'is not a cursor returned by this API' }]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) throw invalid();
  const [createdAt, id] = parsed as unknown[];
  if (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt) || typeof id !== 'string' || id.length > 100) {
    throw invalid();
  }
  return { createdAt, id };
}
