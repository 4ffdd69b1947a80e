import { encodeCursor, type KeysetCursor } from '@botfleet/core';

/** `where` fragment selecting rows strictly after the cursor in (createdAt desc, id desc) order. */
export function afterCursor(cursor: KeysetCursor | undefined) {
  if (!cursor) return {};
  const createdAt = new Date(cursor.createdAt);
  return { OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: cursor.id } }] };
}

export const NEWEST_FIRST = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Rows were fetched with `take: limit + 1`; the extra row only tells whether a next page exists. */
export function toPage<T extends { id: string; createdAt: Date }>(rows: T[], limit: number): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > limit && last ? encodeCursor({ createdAt: last.createdAt.getTime(), id: last.id }) : null;
  return { items, nextCursor };
}
