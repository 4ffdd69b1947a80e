import { isAnyId } from './ids';

/** Position after the last item of a page, for keyset pagination ordered by (createdAt, id) desc. */
export interface KeysetCursor {
  createdAt: number;
  id: string;
}

/** The latest instant a JavaScript Date (and so a PostgreSQL timestamp bound through Prisma) holds. */
const MAX_DATE_MS = 8.64e15;
const BASE64URL = /^[A-Za-z0-9_-]{1,200}$/;

export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

/**
 * Decodes a cursor from a query string, or returns null when it is not one this API could have
 * issued: wrong alphabet, not the [createdAt, id] pair, an id of another shape, a date out of range.
 * Everything that passes is safe to bind into SQL.
 */
export function parseCursor(value: string): KeysetCursor | null {
  if (!BASE64URL.test(value)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2) return null;
  const [createdAt, id] = parsed as unknown[];
  if (typeof createdAt !== 'number' || !Number.isSafeInteger(createdAt) || createdAt < 0 || createdAt > MAX_DATE_MS)
    return null;
  if (typeof id !== 'string' || !isAnyId(id)) return null;
  return { createdAt, id };
}
