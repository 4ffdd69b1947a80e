import { createTestExecution } from '@botfleet/db/testing';
import { waitUntil } from '@botfleet/testkit';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { openConsole, signIn, snap, startConsoleFixture, type ConsoleFixture } from './testing';

/*
 * The console's bots page and a bot's history in Chromium against a running botfleet: the bots
 * page asks the API for one page at a time (search, filters and sort are the API's, each bot's
 * last run and schedule come inline), and a bot's versions can be read and restored.
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
}, 120_000);
afterAll(() => f?.close());

/** Every request the page sends to GET /api/v1/bots and below, as `path?query`. */
function recordBotReads(page: Page): string[] {
  const reads: string[] = [];
  page.on('request', (sent) => {
    const url = new URL(sent.url());
    if (sent.method() === 'GET' && url.pathname.startsWith('/api/v1/')) reads.push(`${url.pathname}${url.search}`);
  });
  return reads;
}

it('pages, searches, filters and sorts the bots with one request per page', async () => {
  // An organization of its own: 25 bots, the odd ones tagged nightly, one paused, one scheduled,
  // one that ran.
  const org = await f.api.newOrg();
  const ids: string[] = [];
  for (let n = 1; n <= 25; n++) {
    const name = `bot-${String(n).padStart(2, '0')}`;
    ids.push(await f.api.newBot(org, { name, tags: n % 2 === 1 ? ['nightly'] : ['daily'] }));
  }
  const write = (method: 'put' | 'patch', path: string) =>
    request(f.api.app)[method](`/api/v1${path}`).set(org.auth('write'));
  expect((await write('patch', `/bots/${ids[6]}`).send({ status: 'paused' })).status).toBe(200);
  const schedule = await write('put', `/bots/${ids[24]}/schedule`).send({
    cron: '0 9 * * 1-5',
    timezone: 'Europe/Paris',
    active: true,
  });
  expect(schedule.status).toBe(200);
  const ran = await createTestExecution(f.api.db, { botId: ids[23]!, organizationId: org.id });

  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  const cards = page.getByTestId('bots-list').locator(':scope > li');
  const reads = recordBotReads(page);
  const count = (n: number, message: string) =>
    waitUntil(async () => (await cards.count()) === n, { timeoutMs: 10_000, message });
  /** Waits for the page's next read of the list, then its cards. */
  const nextRead = async (before: number, cardCount: number, message: string) => {
    await waitUntil(() => reads.length > before, { timeoutMs: 10_000, message: `${message}: the request` });
    await count(cardCount, message);
    await page.locator('[data-testid="bots-list"][aria-busy="true"]').waitFor({ state: 'detached' });
  };
  try {
    await signIn(page, f.baseUrl, org.keys.read);
    await count(20, 'the first page');
    // Each bot with its schedule and its last run, from the same request.
    await cards.filter({ hasText: 'bot-25' }).getByText('0 9 * * 1-5 (Europe/Paris)').waitFor();
    await cards.filter({ hasText: 'bot-24' }).locator(`a[href$="${ran.id}"]`).waitFor();
    await checkA11y('bots (first page)');
    const listReads = () => reads.filter((line) => line.startsWith('/api/v1/bots'));
    // One request for the page; nothing per bot (no schedule, no runs read).
    expect(listReads()).toHaveLength(1);
    expect(reads.filter((line) => line.startsWith('/api/v1/bots/'))).toEqual([]);

    let before = reads.length;
    await page.getByRole('button', { name: 'Next page' }).click();
    await nextRead(before, 5, 'the second page');
    await page.getByText('5 bots, page 2').waitFor();
    before = reads.length;
    await page.getByRole('button', { name: 'Previous page' }).click();
    await nextRead(before, 20, 'back to the first page');
    expect(listReads()).toHaveLength(3);

    before = reads.length;
    await page.getByLabel('Search').fill('bot-1');
    await nextRead(before, 10, 'the search');
    before = reads.length;
    await page.getByLabel('Tag').fill('nightly');
    await nextRead(before, 5, 'the search and the tag');
    expect(listReads()).toHaveLength(5);
    expect(listReads().at(-1)).toMatch(/[?&]q=bot-1(&|$)/);
    expect(listReads().at(-1)).toMatch(/[?&]tag=nightly(&|$)/);
    await page.getByText('5 bots match').waitFor();

    before = reads.length;
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Tag').fill('');
    await nextRead(before, 20, 'no search');
    before = reads.length;
    await page.getByLabel('Status').selectOption('paused');
    await nextRead(before, 1, 'the paused bot');
    await expect(cards.first().textContent()).resolves.toContain('bot-07');
    before = reads.length;
    await page.getByLabel('Status').selectOption('');
    await nextRead(before, 20, 'any status');
    before = reads.length;
    await page.getByLabel('Sort').selectOption('name');
    await nextRead(before, 20, 'by name');
    await expect(cards.first().textContent()).resolves.toContain('bot-01');
    // Every read but the sign-in's was of the list, one per page shown.
    expect(reads.filter((line) => !line.startsWith('/api/v1/bots?'))).toEqual(['/api/v1/api-keys/current']);
    expect(listReads()).toHaveLength(9);
    await checkA11y('bots (searched)');
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

const SECRET = 'whsec_dmVyc2lvbi1zZWNyZXQtdmVyc2lvbg==';

it('shows a bot’s history and a version, restores it, and a run names its version', async () => {
  const write = (method: 'get' | 'put' | 'post', path: string, permission: 'read' | 'write' = 'write') =>
    request(f.api.app)[method](`/api/v1${path}`).set(f.org.auth(permission));
  const one = [{ action: 'fill', selector: '#q', value: 'one' }];
  const two = [
    { action: 'fill', selector: '#q', value: 'two' },
    { action: 'press', selector: '#q', key: 'Enter' },
  ];
  // Versions: 1 as created, 2 its steps, 3 a webhook with a secret, 4 other steps.
  const botId = await f.api.newBot(f.org, { name: 'versioned', targetUrl: `${f.site.origin}/search` }, { steps: one });
  const manifest = await write('put', `/bots/${botId}/manifest`).send({
    webhook: { url: `${f.receiver.url}/hook`, auth: 'hmac', secret: SECRET },
  });
  expect(manifest.status).toBe(200);
  expect((await write('put', `/bots/${botId}/steps`).send({ steps: two })).status).toBe(200);
  const versions = (await write('get', `/bots/${botId}/versions`)).body.data as { version: number }[];
  expect(versions.map((v) => v.version)).toEqual([4, 3, 2, 1]);

  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    const history = page.getByTestId('bot-versions').locator(':scope > li');
    await waitUntil(async () => (await history.count()) === 4, { timeoutMs: 10_000, message: 'four versions' });
    await expect(history.first().textContent()).resolves.toContain('current');
    await expect(history.nth(1).textContent()).resolves.toContain('manifest: webhook');
    await expect(history.last().textContent()).resolves.toContain('the bot as created');
    await checkA11y('bot with history');

    // Version 3: the steps of version 2 and the webhook, its secret masked.
    await page.getByRole('link', { name: 'Version 3', exact: true }).click();
    await page.getByRole('heading', { name: 'versioned: version 3', level: 1 }).waitFor();
    await page.getByTestId('version-steps').getByText('fill "#q" with "one"').waitFor();
    await expect(page.getByTestId('webhook-secret').textContent()).resolves.toBe('•••••••• (set)');
    expect(await page.content()).not.toContain('dmVyc2lvbi1');
    await checkA11y('bot version');
    await snap(page, 'bot-version');

    // Restore asks first, then makes version 5 from version 3.
    await page.getByRole('button', { name: 'Restore version 3' }).click();
    await page.getByRole('button', { name: 'Yes, restore version 3' }).click();
    await page.waitForURL((url) => url.pathname === `/console/bots/${botId}`);
    await waitUntil(async () => (await history.count()) === 5, { timeoutMs: 10_000, message: 'the restored version' });
    await expect(history.first().textContent()).resolves.toContain('restored version 3');
    await page.getByText('fill "#q" with "one"').first().waitFor();
    const steps = (await write('get', `/bots/${botId}/steps`)).body.data as object[];
    expect(steps).toEqual(one.map((step) => expect.objectContaining(step)));
    await page.getByTestId('manifest-webhook-secret-state').getByText('Set.', { exact: false }).waitFor();

    // A run names the version it ran, linked to it.
    const run = await write('post', `/bots/${botId}/executions`).send({ params: {} });
    expect(run.status).toBe(202);
    await page.goto(`${f.baseUrl}/console/runs/${run.body.executionId as string}`);
    await page.getByRole('link', { name: 'Version 5' }).click();
    await page.getByRole('heading', { name: 'versioned: version 5', level: 1 }).waitFor();
    await expect(page.getByTestId('version-changes').textContent()).resolves.toBe('restored version 3');
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }

  // A read key sees the history and no way to restore.
  const read = await openConsole(f.browser, { width: 360, height: 740 });
  try {
    await signIn(read.page, f.baseUrl, f.org.keys.read);
    await read.page.goto(`${f.baseUrl}/console/bots/${botId}/versions/2`);
    await read.page.getByRole('heading', { name: 'versioned: version 2', level: 1 }).waitFor();
    await expect(read.page.getByRole('button', { name: /Restore/ }).count()).resolves.toBe(0);
    await read.checkA11y('bot version (read, 360 px)');
    await read.page.goto(`${f.baseUrl}/console/bots/${botId}`);
    await read.page.getByTestId('bot-versions').waitFor();
    await expect(read.page.getByRole('button', { name: /Restore/ }).count()).resolves.toBe(0);
    expect(read.guard.problems).toEqual([]);
  } finally {
    await read.context.close();
  }
}, 120_000);
