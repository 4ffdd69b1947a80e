import { decodeCursorArray, isCursorTime, parseCursor } from './cursor';
import { isAnyId } from './ids';

/** The orders GET /bots lists in; `-` is descending. Ties are broken by id, in the same direction. */
export const BOT_SORTS = ['-createdAt', 'createdAt', 'name', '-lastRunAt'] as const;
export type BotSort = (typeof BOT_SORTS)[number];

/** Newest first, as GET /bots listed before it could sort. */
export const DEFAULT_BOT_SORT: BotSort = '-createdAt';

/**
 * Where a page of GET /bots ended: the sort it was listed in, the last bot's value of the sort
 * key and its id. The key is Unix ms for the times, null for a bot that never ran (-lastRunAt),
 * the name for `name`.
 */
export type BotListCursor =
  | { sort: '-createdAt' | 'createdAt'; key: number; id: string }
  | { sort: 'name'; key: string; id: string }
  | { sort: '-lastRunAt'; key: number | null; id: string };

/** A name of 200 characters, each escaped by JSON as \uXXXX, then base64: well under this. */
const MAX_CURSOR_LENGTH = 2048;
const MAX_NAME_LENGTH = 200;

export function encodeBotListCursor(cursor: BotListCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.key, cursor.id])).toString('base64url');
}

/**
 * Decodes a cursor of GET /bots, or returns null when it is not one the API could have issued.
 * Everything that passes is safe to bind into SQL. Which sort it belongs to is the caller's
 * check (a cursor of one sort is meaningless in another). A cursor from before sorting existed,
 * the [createdAt, id] pair, still continues a newest-first list.
 */
export function parseBotListCursor(value: string): BotListCursor | null {
  const parsed = decodeCursorArray(value, MAX_CURSOR_LENGTH);
  if (!parsed) return null;
  if (parsed.length === 2) {
    const legacy = parseCursor(value);
    return legacy && { sort: '-createdAt', key: legacy.createdAt, id: legacy.id };
  }
  if (parsed.length !== 3) return null;
  const [sort, key, id] = parsed;
  if (typeof id !== 'string' || !isAnyId(id)) return null;
  switch (sort) {
    case '-createdAt':
    case 'createdAt':
      return isCursorTime(key) ? { sort, key, id } : null;
    case 'name':
      return typeof key === 'string' && key.length >= 1 && key.length <= MAX_NAME_LENGTH ? { sort, key, id } : null;
    case '-lastRunAt':
      return key === null || isCursorTime(key) ? { sort, key, id } : null;
    default:
      return null;
  }
}
