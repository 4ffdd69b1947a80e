import { claimExecution } from '@botfleet/db/state';
import { createTestExecution } from '@botfleet/db/testing';
import { waitUntil } from '@botfleet/testkit';
import type { Page } from 'playwright-core';
import request from 'supertest';
import {
  bookSearchRecording,
  guardPage,
  openConsole as openConsoleIn,
  signIn as signInAt,
  snap,
  startConsoleFixture,
  type ConsoleFixture,
} from './testing';

/*
 * The console in Chromium against a running botfleet (API, worker, delivery): what a person does
 * with it in a morning, and what a read key may not do. Every page is checked with axe-core, and
 * any console error, failed request or unannounced HTTP error fails the test.
 * CONSOLE_SCREENSHOTS=1 also saves the main pages to docs/screenshots/ (testing/console-page.ts).
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
}, 120_000);
afterAll(() => f?.close());

const openConsole = (viewport: { width: number; height: number }) => openConsoleIn(f.browser, viewport);
const signIn = (page: Page, key: string) => signInAt(page, f.baseUrl, key);

/** Drops a file on an element the way a browser does for a drag from the desktop. */
async function dropFile(page: Page, selector: string, name: string, content: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ([fileName, text]) => {
      const data = new DataTransfer();
      data.items.add(new File([text], fileName, { type: 'application/json' }));
      return data;
    },
    [name, content] as const,
  );
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: transfer });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: transfer });
}

const api = (method: 'get' | 'put', path: string, permission: 'write' | 'read' = 'write') =>
  request(f.api.app)[method](`/api/v1${path}`).set(f.org.auth(permission));

let botId: string;
let runId: string;
let failedRunId: string;

/** The Book search bot's webhook: the fixture's receiver, at a path long enough to wrap at 360 px. */
const WEBHOOK_URL = () =>
  `${f.receiver.url}/hooks/example-receiver/book-search/deliveries/from-the-console-test/standard-webhooks`;

/** How many lines a wrapped URL (url-text.tsx) takes, and its first piece, the host. */
function lineCounts(element: Element): { hostLines: number; urlLines: number } {
  const lines = (rects: DOMRectList) => new Set(Array.from(rects, (rect) => Math.round(rect.top))).size;
  const host = document.createRange();
  host.selectNodeContents(element.firstChild!);
  return { hostLines: lines(host.getClientRects()), urlLines: lines(element.getClientRects()) };
}

it('drives a bot from a recording to a delivered, rerun result', async () => {
  const { context, page, guard, checkA11y } = await openConsole({ width: 1280, height: 800 });
  try {
    await page.goto(`${f.baseUrl}/console/`);
    await page.getByLabel('API key').waitFor();
    await checkA11y('sign-in');
    await signIn(page, f.org.keys.write);
    await checkA11y('bots (empty)');
    await expect(page.getByRole('link', { name: 'Queue', exact: true }).count()).resolves.toBe(0);

    // Create a bot by dropping a Chrome Recorder export on the page.
    const recording = bookSearchRecording(f.site.origin);
    await dropFile(page, '.drop-zone', 'book-search.json', JSON.stringify(recording));
    await page.getByRole('heading', { name: 'Book search', level: 1 }).waitFor();
    botId = /\/console\/bots\/(bot_\w+)/.exec(page.url())![1]!;
    // The first selector quoted, the count of its alternatives outside the quotes.
    await page.getByText(`fill "aria/Search terms" (+1 alternative) with "{{params.query}}"`).waitFor();

    // What the console does not edit is set through the API: parameters, webhook, extract steps.
    const manifest = await api('put', `/bots/${botId}/manifest`).send({
      parameters: [
        { name: 'query', type: 'string', required: true, description: 'What to search for' },
        { name: 'limit', type: 'integer' },
      ],
      // Long enough to wrap at 360 px: between its parts, not inside the host.
      webhook: { url: WEBHOOK_URL(), auth: 'hmac', secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=' },
    });
    expect(manifest.status).toBe(200);
    const steps = (await api('get', `/bots/${botId}/steps`)).body.data as object[];
    const extract = [
      { action: 'extract', name: 'summary', selector: '#summary' },
      { action: 'extract', name: 'results', selector: '.result', multiple: true },
    ];
    expect((await api('put', `/bots/${botId}/steps`).send({ steps: [...steps, ...extract] })).status).toBe(200);
    await page.reload();
    await page.getByRole('heading', { name: 'Book search', level: 1 }).waitFor();
    // A write key gets the webhook's form: the secret shows only as set.
    await page.getByTestId('manifest-webhook-secret-state').getByText('Set.', { exact: false }).waitFor();
    expect(await page.content()).not.toContain('c2VjcmV0');

    // A cron schedule in a time zone, with the next runs the API computes.
    await page.getByLabel('On a cron expression').check();
    await page.getByLabel('Cron expression', { exact: true }).fill('0 9 * * 1-5');
    const scheduleForm = page.locator('section', { has: page.getByRole('heading', { name: 'Schedule' }) });
    await scheduleForm.getByLabel('Time zone', { exact: true }).fill('Europe/Paris');
    await scheduleForm.getByLabel(/^query/).fill('morning news');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Cron 0 9 * * 1-5 in Europe/Paris, active.').waitFor();
    await expect(page.getByTestId('next-runs').locator('li').count()).resolves.toBe(5);
    const schedule = (await api('get', `/bots/${botId}/schedule`)).body;
    expect(schedule).toMatchObject({
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      active: true,
      params: { query: 'morning news' },
    });
    await checkA11y('bot');
    await snap(page, 'bot');

    // Trigger with a misspelt extra parameter: the API's suggestion is shown beside it, and fixes it.
    const trigger = page.locator('section', { has: page.getByRole('heading', { name: 'Run now' }) });
    await trigger.getByLabel(/^query/).fill('dune');
    await page.getByRole('button', { name: 'Add another parameter' }).click();
    await trigger.getByLabel('Name').fill('qeury');
    await trigger.getByLabel('Value').fill('dune');
    guard.expectError((r) => r.status() === 400 && r.url().endsWith(`/bots/${botId}/executions`));
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByText('Unknown parameter ‘qeury’. Did you mean ‘query’?').waitFor();
    await checkA11y('trigger form with an unknown parameter');
    await page.getByRole('button', { name: 'Use ‘query’' }).click();
    await expect(trigger.getByLabel('Name').count()).resolves.toBe(0);
    await trigger.getByLabel(/^limit/).fill('2');
    await page.getByRole('button', { name: 'Run', exact: true }).click();

    // The run page follows the run live, without a reload, to its data.
    await page.waitForURL(/\/console\/runs\/exe_/);
    runId = /\/console\/runs\/(exe_\w+)/.exec(page.url())![1]!;
    // The run names its bot, linked, rather than by its id.
    await page.getByRole('main').getByRole('link', { name: 'Book search', exact: true }).waitFor();
    await page.locator('.run-status .badge-completed').waitFor({ timeout: 30_000 });
    await expect(page.getByTestId('step-outputs').locator(':scope > li').count()).resolves.toBe(steps.length + 2);
    const data = page.locator('section', { has: page.getByRole('heading', { name: 'Extracted data' }) });
    await data.getByText('"Dune Messiah"').waitFor();
    // The tree collapses and opens again from its summary (a native <details>).
    await data.locator('summary').first().click();
    await expect(data.getByText('"Dune Messiah"').isVisible()).resolves.toBe(false);
    await data.locator('summary').first().click();
    await data.getByText('"Dune Messiah"').waitFor();
    await expect(data.getByText('"dune"', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.locator('section', { hasText: 'Parameters' }).first().textContent()).resolves.toContain('2');

    // The webhook was delivered; redelivering sends it again and the page shows the new attempt.
    const deliveries = page.getByTestId('deliveries');
    await deliveries.locator('.badge-succeeded').waitFor({ timeout: 15_000 });
    await waitUntil(() => f.receiver.requests.length === 1, { timeoutMs: 10_000, message: 'the first delivery' });
    await checkA11y('run');
    await snap(page, 'run');
    await deliveries.getByRole('button', { name: 'Redeliver' }).click();
    await waitUntil(() => f.receiver.requests.length === 2, { timeoutMs: 15_000, message: 'the redelivery' });
    expect(f.receiver.requests[1]!.headers['webhook-id']).toBe(f.receiver.requests[0]!.headers['webhook-id']);
    await deliveries.locator('.badge-succeeded').waitFor({ timeout: 15_000 });

    // Rerun: a new run of the same params, linked to this one.
    await page.getByRole('button', { name: 'Rerun' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/console/runs/') && !url.pathname.endsWith(runId));
    await page.getByText(`rerun of ${runId}`).waitFor();
    await page.locator('.run-status .badge-completed').waitFor({ timeout: 30_000 });

    // A failing run shows its error and the screenshot, loaded through the console's own origin.
    const failing = await f.api.newBot(
      f.org,
      { name: 'broken', targetUrl: `${f.site.origin}/search`, tags: ['nightly'] },
      { steps: [{ action: 'click', selector: '#no-such-button', timeout: 1000 }] },
    );
    await page.getByRole('link', { name: 'Bots' }).click();
    await page.getByRole('link', { name: 'broken' }).click();
    await page.getByRole('heading', { name: 'broken', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.waitForURL(/\/console\/runs\/exe_/);
    failedRunId = /\/console\/runs\/(exe_\w+)/.exec(page.url())![1]!;
    await page.locator('.run-status .badge-failed').waitFor({ timeout: 30_000 });
    // Steps are counted from 1 in the failure text, as in the step list; said once.
    await expect(page.getByTestId('failure-error').textContent()).resolves.toMatch(
      /^Step 1 \(click "#no-such-button"\) failed: /,
    );
    const shot = page.getByRole('img', { name: 'The page when the run failed' });
    await shot.waitFor();
    await waitUntil(() => shot.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), {
      timeoutMs: 10_000,
      message: 'the screenshot to load',
    });
    // Its artifacts: the failure screenshot, of the step that failed, with its size and link.
    const shotRow = page
      .getByTestId('artifacts')
      .getByRole('row', { name: /Screenshot/ })
      .first();
    await expect(shotRow.textContent()).resolves.toMatch(/^Screenshot1[\d.]+ (B|KB|MB)Open$/);
    await checkA11y('failed run');
    await snap(page, 'failed-run');

    // The bots list: schedule, last run, search and tag filter.
    await page.getByRole('link', { name: 'Bots' }).click();
    const cards = page.locator('main .cards > li');
    await waitUntil(async () => (await cards.count()) === 2, { timeoutMs: 5_000, message: 'two bots' });
    await page.getByText('0 9 * * 1-5 (Europe/Paris)').waitFor();
    await cards.filter({ hasText: 'broken' }).locator('.badge-failed').waitFor();
    await page.getByLabel('Tag').fill('nightly');
    await waitUntil(async () => (await cards.count()) === 1, { timeoutMs: 5_000, message: 'the tag filter' });
    await page.getByLabel('Tag').fill('');
    await page.getByLabel('Search').fill('book');
    // The API searches: until its answer the list shows the tag's one bot, so wait for the other.
    await waitUntil(
      async () => (await cards.count()) === 1 && ((await cards.first().textContent()) ?? '').includes('Book search'),
      { timeoutMs: 5_000, message: 'the search' },
    );
    await page.getByLabel('Search').fill('');
    await checkA11y('bots');
    await snap(page, 'bots');

    // Runs of the organization, filtered by status.
    await page.getByRole('link', { name: 'Runs' }).click();
    const runs = page.getByTestId('runs-list').locator(':scope > li');
    await waitUntil(async () => (await runs.count()) === 3, { timeoutMs: 5_000, message: 'three runs' });
    await expect(runs.getByRole('link', { name: 'Book search', exact: true }).count()).resolves.toBe(2);
    await page.getByLabel('failed').check();
    await waitUntil(async () => (await runs.count()) === 1, { timeoutMs: 5_000, message: 'the failed run only' });
    await expect(runs.getByRole('link', { name: 'broken', exact: true }).count()).resolves.toBe(1);
    await checkA11y('runs');
    await snap(page, 'runs');
    expect(failing).toMatch(/^bot_/);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 180_000);

it('shows a read key everything and no write control, at 360 px', async () => {
  const { context, page, guard, checkA11y } = await openConsole({ width: 360, height: 740 });
  const noHorizontalScroll = () =>
    page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  try {
    await signIn(page, f.org.keys.read);
    await page.locator('main .cards > li').first().waitFor();
    await expect(page.getByRole('link', { name: 'Queue', exact: true }).count()).resolves.toBe(0);
    await expect(page.getByText('Create a bot from a recording').count()).resolves.toBe(0);
    await expect(noHorizontalScroll()).resolves.toBe(true);
    await checkA11y('bots (read, 360 px)');

    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    await page.getByRole('heading', { name: 'Book search', level: 1 }).waitFor();
    await page.getByTestId('next-runs').waitFor();
    await page.getByTestId('bot-runs-list').waitFor();
    // Next runs name their zone (the schedule's), as every other time does.
    await expect(page.getByTestId('next-runs').locator('li').first().textContent()).resolves.toMatch(
      /(GMT[+-]\d+|CES?T|UTC)$/,
    );
    // The webhook URL wraps between its parts: over several lines, its host on one.
    const url = page.getByTestId('url-text').filter({ hasText: 'example-receiver' });
    await expect(url.textContent()).resolves.toBe(WEBHOOK_URL());
    const layout = await url.evaluate(lineCounts);
    expect(layout.hostLines).toBe(1);
    expect(layout.urlLines).toBeGreaterThan(1);
    for (const control of ['Save schedule', 'Run', 'Add another parameter']) {
      await expect(page.getByRole('button', { name: control, exact: true }).count()).resolves.toBe(0);
    }
    await expect(page.getByText('Replace the steps with a recording').count()).resolves.toBe(0);
    await expect(page.locator('main input[type=file], main form.form').count()).resolves.toBe(0);
    await expect(noHorizontalScroll()).resolves.toBe(true);
    await checkA11y('bot (read, 360 px)');
    await snap(page, 'bot-mobile');

    await page.goto(`${f.baseUrl}/console/runs/${runId}`);
    await page.getByTestId('deliveries').waitFor();
    for (const control of ['Rerun', 'Cancel run', 'Redeliver']) {
      await expect(page.getByRole('button', { name: control }).count()).resolves.toBe(0);
    }
    await expect(noHorizontalScroll()).resolves.toBe(true);
    await checkA11y('run (read, 360 px)');

    await page.goto(`${f.baseUrl}/console/runs/${failedRunId}`);
    await page.getByRole('img', { name: 'The page when the run failed' }).waitFor();
    await expect(noHorizontalScroll()).resolves.toBe(true);

    // Keyboard: the skip link is the first stop, and signing out works from the keyboard.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to content');
    await page.getByRole('button', { name: 'Sign out' }).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('API key').waitFor();
    await expect(page.evaluate(() => sessionStorage.length)).resolves.toBe(0);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

/** The trace the failed run kept (capabilities.trace defaults to onFailure), by the API's list. */
async function traceOf(executionId: string): Promise<string> {
  const res = await request(f.api.app).get(`/api/v1/executions/${executionId}/artifacts`).set(f.org.auth('read'));
  const trace = (res.body.data as { id: string; kind: string }[]).find((a) => a.kind === 'trace');
  if (!trace) throw new Error(`the failed run kept no trace: ${res.text}`);
  return trace.id;
}

it('opens a run’s trace in Playwright’s trace viewer, loading nothing from another origin', async () => {
  const traceId = await traceOf(failedRunId);
  const { context, page, guard } = await openConsole({ width: 1280, height: 800 });
  // Every request of every page and of the viewer's service worker, wherever it was going.
  const requested: string[] = [];
  await context.route('**', (route) => {
    requested.push(route.request().url());
    return route.continue();
  });
  context.on('request', (sent) => requested.push(sent.url()));
  // Watched from its first event: the viewer's tab, opened by the console.
  const viewerProblems: string[][] = [];
  context.on('page', (opened) => viewerProblems.push(guardPage(opened).problems));
  try {
    await signIn(page, f.org.keys.read);
    await page.goto(`${f.baseUrl}/console/runs/${failedRunId}`);
    const row = page.getByTestId('artifacts').locator('tr', { has: page.locator(`a[href*="${traceId}"]`) });
    await expect(row.locator('th').textContent()).resolves.toBe('Trace');
    const [viewer] = await Promise.all([
      context.waitForEvent('page'),
      row.getByRole('link', { name: 'Open trace' }).click(),
    ]);
    expect(new URL(viewer.url()).pathname).toBe('/trace-viewer/');
    // The action list names the click that failed, and its snapshot frame renders the page.
    await viewer.getByText("locator('#no-such-button')").first().waitFor({ timeout: 30_000 });
    await viewer.getByText("locator('#no-such-button')").first().click();
    const snapshot = viewer.frameLocator('iframe.snapshot-visible').first();
    await snapshot.getByLabel('Search terms').waitFor({ timeout: 15_000 });

    const elsewhere = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== f.baseUrl);
    expect(elsewhere).toEqual([]);
    expect(requested.some((url) => url.includes(`/api/v1/artifacts/${traceId}?`))).toBe(true);
    // Chromium warns of the viewer's own snapshot frames (sandboxed, yet same-origin so the viewer
    // can reach into them); every other warning or error counts.
    const sandboxWarning = /^console warning: An iframe which has both allow-scripts and allow-same-origin/;
    expect(viewerProblems).toHaveLength(1);
    expect(viewerProblems[0]!.filter((problem) => !sandboxWarning.test(problem))).toEqual([]);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('shows an admin key its organization’s queue, refreshing, at 360 px', async () => {
  // An organization of its own, with runs written straight to the table (no job, and outside the
  // fixture worker's sweep): the figures stay exactly as written while the page is checked.
  const admin = await f.api.newOrg();
  const botId = await f.api.newBot(admin, { name: 'queued' });
  const oldest = await createTestExecution(f.api.db, { botId, organizationId: admin.id });
  for (let i = 0; i < 2; i++) await createTestExecution(f.api.db, { botId, organizationId: admin.id });
  const started = await createTestExecution(f.api.db, { botId, organizationId: admin.id });
  expect(await claimExecution(f.api.db, started.id)).not.toBeNull();
  const { context, page, guard, checkA11y } = await openConsole({ width: 360, height: 740 });
  try {
    await signIn(page, admin.keys.admin);
    // Keyboard: the navigation's Queue link opens the page.
    await page.getByRole('link', { name: 'Queue', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();
    await page.getByTestId('queue-overview').waitFor();
    await expect(page.getByTestId('queue-pending').textContent()).resolves.toBe('3');
    await expect(page.getByTestId('queue-running').textContent()).resolves.toBe('1');
    await expect(page.getByTestId('queue-oldest').textContent()).resolves.toMatch(/^\d[\d.]* (ms|s|min)/);
    const api = (await request(f.api.app).get('/api/v1/queue').set(admin.auth('admin'))).body;
    expect(api).toMatchObject({ pending: 3, running: 1, oldestPendingCreatedAt: oldest.createdAt.getTime() });
    // The fixture runs a worker on the executions queue.
    expect(api.workers).toBeGreaterThanOrEqual(1);
    await expect(page.getByTestId('queue-workers').textContent()).resolves.toBe(String(api.workers));
    const board = page.getByRole('link', { name: 'Open the queue board at /admin/queues' });
    await expect(board.getAttribute('href')).resolves.toBe('/admin/queues');
    await page.getByText('OPS_ADMIN_TOKEN', { exact: false }).first().waitFor();
    await expect(
      page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    ).resolves.toBe(true);
    await checkA11y('queue (admin, 360 px)');

    // A new run shows up without a reload.
    await createTestExecution(f.api.db, { botId, organizationId: admin.id });
    await page.getByTestId('queue-pending').getByText('4', { exact: true }).waitFor({ timeout: 15_000 });
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('serves the trace viewer from playwright-core with a policy of its own origin', async () => {
  const viewer = await request(f.api.app).get('/trace-viewer/');
  expect(viewer.status).toBe(200);
  expect(viewer.text).toContain('Playwright Trace Viewer');
  const policy = viewer.headers['content-security-policy'] as string;
  expect(policy).toContain("default-src 'self'");
  expect(policy).toContain("connect-src 'self'");
  expect(policy).toMatch(/script-src 'self' 'sha256-[\w+/=]+'(;|$)/);
  expect(viewer.headers['referrer-policy']).toBe('no-referrer');
  const worker = await request(f.api.app).get('/trace-viewer/sw.bundle.js');
  expect(worker.status).toBe(200);
  expect(worker.headers['content-type']).toMatch(/javascript/);
  expect((await request(f.api.app).get('/trace-viewer')).status).toBe(301);
});

it('serves the console with a same-origin content policy and opens deep links', async () => {
  const page = await request(f.api.app).get('/console/runs/exe_anything');
  expect(page.status).toBe(200);
  expect(page.text).toContain('<div id="app"></div>');
  expect(page.headers['content-security-policy']).toContain("default-src 'self'");
  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page.text)![1]!;
  const asset = await request(f.api.app).get(script);
  expect(asset.status).toBe(200);
  expect(asset.headers['cache-control']).toContain('immutable');
  expect((await request(f.api.app).get('/console/assets/missing.js')).status).toBe(404);
});
