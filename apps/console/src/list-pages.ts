/**
 * Lists without a search of their own (profiles, credentials): the console pages through at most
 * this many pages and filters them itself. The bots page asks GET /bots for one page at a time.
 */
export const MAX_PAGES = 10;

export interface ListPage<T> {
  data: T[];
  nextCursor: string | null;
}

/** Every item of a cursor list, up to MAX_PAGES pages of `limit`. */
export async function collectPages<T>(loadPage: (cursor: string | undefined) => Promise<ListPage<T>>): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const { data, nextCursor } = await loadPage(cursor);
    all.push(...data);
    if (!nextCursor) break;
    cursor = nextCursor;
  }
  return all;
}
