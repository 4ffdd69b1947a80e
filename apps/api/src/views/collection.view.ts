import type { Page } from '@botfleet/db';

/** The envelope of every list answer: `{ data: [...] }`. */
export function toListView<V>(items: V[]): { data: V[] } {
  return { data: items };
}

/** The envelope of every paginated answer: the page's items as `view` shows them, and the next cursor. */
export function toPageView<T, V>(page: Page<T>, view: (item: T) => V): { data: V[]; nextCursor: string | null } {
  return { data: page.items.map(view), nextCursor: page.nextCursor };
}
