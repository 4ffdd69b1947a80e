import { isAnyId } from './ids';

/** Position after the last item of a page, for keyset pagination ordered by (createdAt, id) desc. */
export interface KeysetCursor {
  createdAt: number;
  id: string;
}

/** The latest instant a JavaScript Date (and so a PostgreSQL timestamp bound through Prisma) holds. */
const MAX_DATE_MS = 8.64e15;

/** Unix ms a cursor may carry: a whole number a Date (and a bound timestamp) can hold. */
export const isCursorTime = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_DATE_MS;

/**
 * The JSON array a cursor encodes (base64url of JSON), or null when the text is not in the
 * alphabet, longer than `maxLength`, not JSON or not an array. Each list checks the entries.
 */
export function decodeCursorArray(value: string, maxLength: number): unknown[] | null {
  if (value.length < 1 || value.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(value)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function encodeCursor(cursor: KeysetCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url');
}

/**
 * Decodes a cursor from a query string, or returns null when it is not one this API could have
 * issued: wrong alphabet, not the [createdAt, id] pair, an id of another shape, a date out of range.
 * Everything that passes is safe to bind into SQL.
 */
export function parseCursor(value: string): KeysetCursor | null {
  const parsed = decodeCursorArray(value, 200);
  if (!parsed || parsed.length !== 2) return null;
  const [createdAt, id] = parsed;
  if (!isCursorTime(createdAt) || typeof id !== 'string' || !isAnyId(id)) return null;
  return { createdAt, id };
}
