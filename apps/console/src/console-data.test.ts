import { createTestExecution } from '@botfleet/db/testing';
import { readFileSync } from 'node:fs';
import type { Download, Page } from 'playwright-core';
import request from 'supertest';
import { openConsole, signIn, snap, startConsoleFixture, type ConsoleFixture } from './testing';

/*
 * The data view in Chromium against a running botfleet: a run's data that is a list of records
 * shows as a table (columns from the flattened keys, as the CSV export names them) beside the
 * tree, HTML in the data stays text, and the downloads are the export endpoints' answers.
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
}, 120_000);
afterAll(() => f?.close());

const HTML = '<img src=x onerror="window.__injected=1"><b>Boots</b>';

/** An object whose one list of objects is the records; `total` stays in the tree only. */
const DATA = {
  total: 2,
  products: [
    { name: HTML, price: 49.9, seller: { name: 'Shop 4' } },
    { name: 'Hat', price: 12, tags: ['wool', 'red'], inStock: true },
  ],
};

/** The file a download button saves, read as text once Chromium has it. */
async function downloaded(page: Page, button: string): Promise<{ download: Download; text: string }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button, exact: true }).click(),
  ]);
  const path = await download.path();
  return { download, text: readFileSync(path, 'utf8') };
}

it('shows a run’s records as a table beside the tree and downloads the API’s exports', async () => {
  const botId = await f.api.newBot(f.org, { name: 'shop watcher' });
  const run = await createTestExecution(f.api.db, {
    botId,
    organizationId: f.org.id,
    completed: { extractedData: DATA },
  });
  // As a worker leaves a first run with data: the run page reads the extract of runs marked so.
  await f.api.db.execution.update({ where: { id: run.id }, data: { dataChanged: true } });
  const read = (path: string) => request(f.api.app).get(`/api/v1${path}`).set(f.org.auth('read'));

  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 360, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.read);
    await page.goto(`${f.baseUrl}/console/runs/${run.id}`);
    const table = page.getByTestId('run-data-table');
    await table.waitFor();
    await page.getByRole('table', { name: '2 records in “products” as a table' }).waitFor();

    // Columns: the union of the records' flattened keys, as the API's CSV names them after its two.
    const columns = await table.locator('thead th[scope="col"]').allTextContents();
    const csv = await read(`/executions/${run.id}/extract?format=csv&itemsPath=products`);
    expect(csv.status).toBe(200);
    const header = csv.text.split('\r\n')[0]!.split(',');
    expect(header).toEqual(['executionId', 'completedAt', ...columns]);
    expect([...columns].sort()).toEqual(['name', 'price', 'seller.name', 'tags.0', 'tags.1', 'inStock'].sort());

    // Cells as the CSV writes them: numbers as JSON, absent values empty, the HTML as its text.
    const rows = table.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    const cellsOf = async (row: number) => {
      const cells = await rows.nth(row).locator('td').allTextContents();
      return Object.fromEntries(columns.map((column, index) => [column, cells[index]]));
    };
    await expect(cellsOf(0)).resolves.toEqual({
      name: HTML,
      price: '49.9',
      'seller.name': 'Shop 4',
      'tags.0': '',
      'tags.1': '',
      inStock: '',
    });
    await expect(cellsOf(1)).resolves.toMatchObject({ name: 'Hat', price: '12', 'tags.1': 'red', inStock: 'true' });
    await expect(table.locator('img').count()).resolves.toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __injected?: number }).__injected)).toBeUndefined();

    // The tree is still there, with what the table leaves out.
    const tree = page.locator('.data-tree .json-tree');
    await tree.getByText('total').waitFor();
    await expect(tree.textContent()).resolves.toContain('products');

    // The table scrolls inside its wrapper at 360 px; the page itself does not.
    const scroll = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      viewport: window.innerWidth,
    }));
    expect(scroll.page).toBeLessThanOrEqual(scroll.viewport);
    await checkA11y('run with a table (360 px)');
    // The README's picture: on a wide screen the tree stands beside the table.
    await page.setViewportSize({ width: 1280, height: 800 });
    await snap(page, 'run-data');
    await page.setViewportSize({ width: 360, height: 800 });

    // Downloads: the bytes the export endpoints answer, records cut at the table's list.
    const csvFile = await downloaded(page, 'Download CSV');
    expect(csvFile.download.suggestedFilename()).toBe(`${run.id}-data.csv`);
    expect(csvFile.text).toBe(csv.text);
    const jsonl = await read(`/executions/${run.id}/extract?format=jsonl&itemsPath=products`);
    expect((await downloaded(page, 'Download JSONL')).text).toBe(jsonl.text);
    const json = JSON.parse((await downloaded(page, 'Download JSON')).text) as unknown;
    expect(json).toEqual({ data: DATA });

    // The bot's page shows the latest results the same way; its downloads are every run's.
    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    await page.getByTestId('latest-data-table').waitFor();
    const results = await read(`/bots/${botId}/results?format=csv&itemsPath=products`);
    expect(results.status).toBe(200);
    const botCsv = await downloaded(page, 'Download CSV');
    expect(botCsv.download.suggestedFilename()).toBe(`${botId}-results.csv`);
    expect(botCsv.text).toBe(results.text);
    await checkA11y('bot with latest results (360 px)');
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('keeps data that is no list of records a tree only, with its downloads', async () => {
  const botId = await f.api.newBot(f.org, { name: 'headline watcher' });
  // Two lists of objects: neither is the obvious one, so no table.
  const data = { headline: 'Hello', a: [{ x: 1 }], b: [{ y: 2 }] };
  const run = await createTestExecution(f.api.db, {
    botId,
    organizationId: f.org.id,
    completed: { extractedData: data },
  });
  await f.api.db.execution.update({ where: { id: run.id }, data: { dataChanged: true } });

  const { context, page, guard } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.read);
    await page.goto(`${f.baseUrl}/console/runs/${run.id}`);
    await page.locator('.data-tree .json-tree').getByText('headline').waitFor();
    await expect(page.getByRole('table').count()).resolves.toBe(0);
    // One record for the run, as the export makes of data without itemsPath.
    const csv = await request(f.api.app).get(`/api/v1/executions/${run.id}/extract?format=csv`).set(f.org.auth('read'));
    expect((await downloaded(page, 'Download CSV')).text).toBe(csv.text);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);
