import { waitUntil, type FixtureHandler, type ReceivedRequest } from '@botfleet/testkit';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { openConsole, signIn, startConsoleFixture, type ConsoleFixture } from './testing';

/*
 * Issue 28's promise, as a person keeps it: an action bot made, given parameters, a webhook and
 * steps, scheduled, run and its results downloaded, all through the console's pages in Chromium
 * against a running botfleet (API, worker, delivery). The API is never called by the test; what
 * the console did is checked where it lands: the shop's page, the webhook receiver, the file.
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
  f.site.setRoute('/order', ORDER_PAGE);
  f.site.setRoute('/orders', placeOrder);
}, 120_000);
afterAll(() => f?.close());

/** Signs the webhook's deliveries (a secret without whsec_ is keyed with its UTF-8 bytes). */
const SECRET = 'journey-hmac-Secret-1';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A shop's order form on loopback: what the action bot acts on. */
const ORDER_PAGE = `<!doctype html><html lang="en"><title>Order</title><body>
  <form action="/orders" method="POST">
    <label for="book">Book</label><input id="book" name="book">
    <label for="copies">Copies</label><input id="copies" name="copies">
    <button type="submit">Place order</button>
  </form></body></html>`;

/** The order placed: its number, and its lines (the book as typed, then shipping) as the records. */
const placeOrder: FixtureHandler = (_request, res, body) => {
  const form = new URLSearchParams(body);
  const book = escapeHtml(form.get('book') ?? '');
  const copies = escapeHtml(form.get('copies') ?? '');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
    `<!doctype html><html lang="en"><title>Order placed</title><body>
     <p id="confirmation">Order 1042 placed</p>
     <ul>
       <li class="line"><span class="item">${book}</span> × <span class="quantity">${copies}</span></li>
       <li class="line"><span class="item">Shipping</span> × <span class="quantity">1</span></li>
     </ul></body></html>`,
  );
};

/** What the run extracts: the confirmation, and the order's lines as records. */
const ORDER_LINES = [
  { item: 'The Left Hand of Darkness', quantity: '2' },
  { item: 'Shipping', quantity: '1' },
];

/** The Standard Webhooks signature of a delivery, as keyed with SECRET. */
function signedWithSecret(received: ReceivedRequest): boolean {
  const id = String(received.headers['webhook-id']);
  const timestamp = String(received.headers['webhook-timestamp']);
  const expected = createHmac('sha256', SECRET).update(`${id}.${timestamp}.${received.body}`).digest('base64');
  return String(received.headers['webhook-signature']) === `v1,${expected}`;
}

/** The text of the file a download button saves. */
async function downloadedText(page: Page, button: string): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button, exact: true }).click(),
  ]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), 'utf8') };
}

it('creates an action bot with parameters, a webhook and steps, schedules it, runs it and downloads its results', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 900 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await checkA11y('bots');

    // 1. A bot from scratch, of the action kind, on the shop's order page.
    await page.getByRole('button', { name: 'Create a bot from scratch' }).click();
    const newBot = page.getByRole('form', { name: 'New bot' });
    await newBot.getByLabel('Name', { exact: true }).fill('Book orderer');
    await newBot.getByLabel('Target URL').fill(`${f.site.origin}/order`);
    await newBot.getByLabel('Kind').selectOption('action');
    await checkA11y('new bot form');
    await newBot.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('heading', { name: 'Book orderer', level: 1 }).waitFor();
    const botId = /\/console\/bots\/(bot_\w+)/.exec(page.url())![1]!;
    await page.getByRole('heading', { name: 'Parameters', level: 3 }).waitFor();
    await checkA11y('new bot');

    // 2. Its parameters: the book (required) and how many copies.
    const parameters = page.getByRole('form', { name: 'Parameters' });
    const parameter = (n: number) => parameters.getByRole('group', { name: `Parameter ${n}`, exact: true });
    await parameters.getByRole('button', { name: 'Add a parameter' }).click();
    await parameter(1).getByLabel('Name').fill('book');
    await parameter(1).getByLabel('Required: a run without it is refused').check();
    await parameter(1).getByLabel('Description (optional)').fill('The title to order');
    await parameters.getByRole('button', { name: 'Add a parameter' }).click();
    await parameter(2).getByLabel('Name').fill('copies');
    await parameter(2).getByLabel('Type').selectOption('integer');
    await parameters.getByRole('button', { name: 'Save parameters' }).click();
    await parameters.getByRole('status').getByText('Saved.').waitFor();
    const runNow = page.getByRole('region', { name: 'Run now' });
    await runNow.getByLabel(/^book/).waitFor();

    // Its webhook, signed with a secret; a test event reaches the receiver, whose answer is shown.
    const webhook = page.getByRole('form', { name: 'Webhook' });
    await webhook.getByLabel('URL').fill(`${f.receiver.url}/orders-placed`);
    await webhook.getByLabel('Authentication').selectOption('hmac');
    await webhook.getByLabel('Secret').fill(SECRET);
    await webhook.getByRole('button', { name: 'Save webhook' }).click();
    await webhook.getByRole('status').getByText('Saved.').waitFor();
    await page.getByTestId('manifest-webhook-secret-state').getByText('Set.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page
      .getByTestId('webhook-test-result')
      .getByText(/^Delivered: HTTP 200 after \d+ ms\.$/)
      .waitFor();
    const testEvent = f.receiver.requests.at(-1)!;
    expect(testEvent.url).toBe('/orders-placed');
    expect(testEvent.headers['x-botfleet-event']).toBe('webhook.test');
    expect(signedWithSecret(testEvent)).toBe(true);
    await checkA11y('bot with parameters and a webhook');

    // 3. Its steps, the typed values taken from the run's parameters.
    const steps = page.getByRole('form', { name: 'Edit the steps' });
    await steps.getByText('No steps: every run opens the target URL and ends.').waitFor();
    const addStep = async (action: string, n: number) => {
      await steps.getByLabel('New step’s action').selectOption(action);
      await steps.getByRole('button', { name: 'Add a step' }).click();
      const step = steps.getByRole('group', { name: `Step ${n}`, exact: true });
      await step.waitFor();
      return step;
    };
    const open = await addStep('goto', 1);
    await open.getByLabel('url', { exact: true }).fill(`${f.site.origin}/order`);
    const fillBook = await addStep('fill', 2);
    await fillBook.getByLabel('Selector', { exact: true }).fill('#book');
    await fillBook.getByLabel('Text to fill').fill('{{params.book}}');
    const fillCopies = await addStep('fill', 3);
    await fillCopies.getByLabel('Selector', { exact: true }).fill('#copies');
    await fillCopies.getByLabel('Text to fill').fill('{{params.copies}}');
    const order = await addStep('click', 4);
    await order.getByLabel('Selector', { exact: true }).fill('aria/Place order');
    // A single value waits for its element: the order placed, on the page the click opened.
    const confirmation = await addStep('extract', 5);
    await confirmation.getByLabel('name', { exact: true }).fill('confirmation');
    // An extract reads one plain selector (no alternatives): a text field of that name.
    await confirmation.getByLabel('selector', { exact: true }).fill('#confirmation');
    const lines = await addStep('extract', 6);
    await lines.getByLabel('name', { exact: true }).fill('lines');
    await lines.getByLabel('selector', { exact: true }).fill('.line');
    await lines.getByLabel('multiple', { exact: true }).selectOption('true');
    await lines
      .getByLabel('fields', { exact: true })
      .fill(JSON.stringify({ item: { selector: '.item' }, quantity: { selector: '.quantity' } }));
    await checkA11y('steps editor with new steps');
    await steps.getByRole('button', { name: 'Save steps' }).click();
    await steps.getByRole('status').getByText('Saved 6 steps.').waitFor();
    await steps.getByText('fill "#book" with "{{params.book}}"').waitFor();

    // 4. A schedule (weekday mornings in Paris, with its own parameters) and the next runs it gives.
    const schedule = page.getByRole('region', { name: 'Schedule' });
    await schedule.getByText('Not scheduled.').waitFor();
    await schedule.getByLabel('On a cron expression').check();
    await schedule.getByLabel('Cron expression', { exact: true }).fill('0 9 * * 1-5');
    await schedule.getByLabel('Time zone', { exact: true }).fill('Europe/Paris');
    await schedule.getByLabel(/^book/).fill('Dune');
    await schedule.getByLabel(/^copies/).fill('1');
    await schedule.getByRole('button', { name: 'Save schedule' }).click();
    await schedule.getByText('Cron 0 9 * * 1-5 in Europe/Paris, active.').waitFor();
    const nextRuns = schedule.getByTestId('next-runs').locator('time');
    await expect(nextRuns.count()).resolves.toBe(5);
    for (const at of await nextRuns.evaluateAll((times) => times.map((time) => time.getAttribute('datetime') ?? ''))) {
      expect(Date.parse(at)).toBeGreaterThan(Date.now());
    }
    await checkA11y('bot, scheduled');

    // 5. Run it now with this order's values; the run page follows it to its data.
    await runNow.getByLabel(/^book/).fill(ORDER_LINES[0]!.item);
    await runNow.getByLabel(/^copies/).fill(ORDER_LINES[0]!.quantity);
    await runNow.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/\/console\/runs\/exe_\w+$/);
    const runId = /\/console\/runs\/(exe_\w+)/.exec(page.url())![1]!;
    await page.locator('.run-status .badge-completed').waitFor({ timeout: 60_000 });
    const runTable = page.getByTestId('run-data-table');
    await page.getByRole('table', { name: '2 records in “lines” as a table' }).waitFor();
    await expect(runTable.locator('thead th[scope="col"]').allTextContents()).resolves.toEqual(['item', 'quantity']);
    const rows = await runTable
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows).toEqual(ORDER_LINES.map((line) => [line.item, line.quantity]));
    await checkA11y('completed run');
    // The shop got the order the parameters described.
    const placed = f.site.requests.find((sent) => sent.method === 'POST' && sent.path === '/orders');
    expect(new URLSearchParams(placed?.body)).toEqual(
      new URLSearchParams({ book: ORDER_LINES[0]!.item, copies: ORDER_LINES[0]!.quantity }),
    );

    // The webhook received the run's data, signed with the secret.
    const delivered = await waitUntil(
      () => f.receiver.requests.find((received) => received.headers['x-botfleet-event'] === 'execution.completed'),
      { timeoutMs: 30_000, message: 'the signed delivery of the run' },
    );
    expect(delivered.url).toBe('/orders-placed');
    expect(signedWithSecret(delivered)).toBe(true);
    expect(JSON.parse(delivered.body)).toEqual({ confirmation: 'Order 1042 placed', lines: ORDER_LINES });

    // 6. Back on the bot's page (through the run's link to it), its latest results and their downloads.
    await page.getByRole('main').getByRole('link', { name: 'Book orderer', exact: true }).click();
    await page.getByRole('heading', { name: 'Book orderer', level: 1 }).waitFor();
    const latest = page.getByRole('region', { name: 'Latest results' });
    await latest.getByTestId('latest-data-table').waitFor();
    await latest.getByRole('link', { name: 'the run' }).waitFor();
    await expect(latest.getByRole('link', { name: 'the run' }).getAttribute('href')).resolves.toBe(
      `/console/runs/${runId}`,
    );
    await checkA11y('bot with its latest results');

    const csv = await downloadedText(page, 'Download CSV');
    expect(csv.name).toBe(`${botId}-results.csv`);
    const [header, ...records] = csv.text.trimEnd().split('\r\n');
    expect(header).toBe('executionId,completedAt,item,quantity');
    expect(records.map((record) => record.split(','))).toEqual(
      ORDER_LINES.map((line) => [runId, expect.any(String), line.item, line.quantity]),
    );
    const jsonl = await downloadedText(page, 'Download JSONL');
    expect(jsonl.name).toBe(`${botId}-results.jsonl`);
    const jsonRecords = jsonl.text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(jsonRecords).toEqual(ORDER_LINES.map((line) => expect.objectContaining({ executionId: runId, ...line })));

    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 300_000);
