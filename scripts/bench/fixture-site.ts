import type { StepInput } from '@botfleet/core';
import { startFixtureServer, type FixtureServer } from '@botfleet/testkit';

/** Items on the fixture page; every run must extract exactly this many. */
export const ITEM_COUNT = 20;
export const FIXTURE_PATH = '/catalog';

/** A small catalogue page: a title and a list of items, each with a name, a price and a link. */
function catalogPage(): string {
  const items = Array.from(
    { length: ITEM_COUNT },
    (_, i) =>
      `<li class="item"><a href="/item/${i}"><span class="name">Item ${i}</span></a>` +
      `<span class="price" data-cents="${(i + 1) * 199}">${((i + 1) * 1.99).toFixed(2)}</span></li>`,
  ).join('\n    ');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Catalog</title>
  <style>body{font-family:sans-serif} .item{display:flex;gap:1em}</style></head><body>
  <h1 id="title">Spring catalogue</h1>
  <ul id="items">
    ${items}
  </ul></body></html>`;
}

/**
 * The bot's recorded steps. The bare loop performs the same three operations with plain
 * Playwright (see extractBare), so the two sides differ only in what surrounds the page work.
 */
export const BOT_STEPS: StepInput[] = [
  { action: 'waitFor', selector: '#items .item' },
  { action: 'extract', name: 'title', selector: '#title' },
  {
    action: 'extract',
    name: 'items',
    selector: '#items .item',
    multiple: true,
    fields: { name: { selector: '.name' }, price: { selector: '.price' }, url: { selector: 'a', attribute: 'href' } },
  },
];

export async function startFixtureSite(): Promise<{ server: FixtureServer; url: string }> {
  const server = await startFixtureServer({ [FIXTURE_PATH]: catalogPage() });
  return { server, url: server.url(FIXTURE_PATH) };
}

/** What one run extracts, by either path. */
export interface CatalogData {
  title: string | null;
  items: Array<Record<string, string | null>>;
}

/** Throws unless a run's extracted data is the whole page. */
export function assertCatalogData(data: unknown, where: string): void {
  const value = data as Partial<CatalogData> | null;
  if (
    !value ||
    value.title !== 'Spring catalogue' ||
    !Array.isArray(value.items) ||
    value.items.length !== ITEM_COUNT
  ) {
    throw new Error(`${where}: unexpected extracted data ${JSON.stringify(data)?.slice(0, 300)}`);
  }
}
