import { waitUntil } from '@botfleet/testkit';
import type { Page } from 'playwright-core';
import request from 'supertest';
import { openConsole, signIn, snap, startConsoleFixture, type ConsoleFixture } from './testing';

/*
 * The console following runs live in Chromium against a running botfleet (API, worker): the run
 * page and the runs list take their updates from the API's event streams (docs/live-runs.md),
 * with no polling. Runs wait on a page of the fixture site that answers only when the test says
 * so, so "while the run is going" is a state the test holds, not a race it hopes to win.
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
}, 120_000);
afterAll(() => f?.close());

/**
 * How long the page is watched for requests while a run holds still. The console used to read a
 * live run every second and the runs list every two: a poll would show up in this window.
 */
const QUIET_WINDOW_MS = 2500;

/** A page of the site that answers when `release` is called: a run's `goto` step waits on it. */
function holdAt(path: string): { release(): void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  f.site.setRoute(path, async (_req, res) => {
    await released;
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><html lang="en"><title>Gate</title><body><p id="summary">through the gate</p></body></html>',
      );
  });
  return { release };
}

/** A bot that fills the search box, waits at `gate`, then extracts from it: three steps. */
async function gatedBot(name: string, gate: string): Promise<string> {
  return f.api.newBot(
    f.org,
    { name, targetUrl: `${f.site.origin}/search` },
    {
      steps: [
        { action: 'fill', selector: '#q', value: 'dune' },
        { action: 'goto', url: `${f.site.origin}${gate}`, timeout: 60_000 },
        { action: 'extract', name: 'summary', selector: '#summary' },
      ],
    },
  );
}

async function trigger(botId: string): Promise<string> {
  const res = await request(f.api.app)
    .post(`/api/v1/bots/${botId}/executions`)
    .set(f.org.auth('write'))
    .send({ params: {} });
  expect(res.status).toBe(202);
  return res.body.executionId as string;
}

interface SentRequests {
  /** Every request the page sent to the API, as `METHOD /path?query`. */
  all: string[];
  /** When the last one was sent. */
  lastAt: number;
}

function recordApiRequests(page: Page): SentRequests {
  const sent: SentRequests = { all: [], lastAt: Date.now() };
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/api/')) return;
    sent.all.push(`${request.method()} ${url.pathname}${url.search}`);
    sent.lastAt = Date.now();
  });
  return sent;
}

/**
 * Waits until the page has sent nothing for a while: the reads an event asked for (the runs
 * list gathers them for a second) are done, so what follows is the page at rest.
 */
async function settled(sent: SentRequests): Promise<void> {
  await waitUntil(() => Date.now() - sent.lastAt > 1500, { timeoutMs: 15_000, message: 'the page to settle' });
}

const apiGet = async (path: string) =>
  (await request(f.api.app).get(`/api/v1${path}`).set(f.org.auth('read'))).body as { data: unknown[] };

it('follows a run from its event stream: steps as they finish, logs, the end, and no polling', async () => {
  const gate = holdAt('/gate-run');
  const botId = await gatedBot('gated run', '/gate-run');
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    const sent = recordApiRequests(page);
    const executionId = await trigger(botId);
    await page.goto(`${f.baseUrl}/console/runs/${executionId}`);

    // The first step shows while the run waits at the gate: the page is live, not done.
    const outputs = page.getByTestId('step-outputs').locator(':scope > li');
    await f.site.waitForRequest((r) => r.path === '/gate-run', 30_000);
    await page.locator('.run-status .badge-running').waitFor({ timeout: 30_000 });
    await waitUntil(async () => (await outputs.count()) === 1, { timeoutMs: 15_000, message: 'the first step' });
    await expect(outputs.first().textContent()).resolves.toContain('fill');
    await page.getByText('updating live').waitFor();
    // The run names the bot's version it runs (its steps were put after creation: version 2).
    await expect(page.getByRole('link', { name: 'Version 2' }).getAttribute('href')).resolves.toBe(
      `/console/bots/${botId}/versions/2`,
    );
    await checkA11y('run (live)');
    await snap(page, 'run-live');

    // Nothing is asked while the run holds still.
    await settled(sent);
    const before = sent.all.length;
    await page.waitForTimeout(QUIET_WINDOW_MS);
    expect(sent.all.slice(before)).toEqual([]);

    gate.release();
    await page.locator('.run-status .badge-completed').waitFor({ timeout: 30_000 });
    await waitUntil(async () => (await outputs.count()) === 3, { timeoutMs: 10_000, message: 'three steps' });
    const data = page.locator('section', { has: page.getByRole('heading', { name: 'Extracted data' }) });
    await data.getByText('"through the gate"').waitFor();
    await expect(page.getByText('updating live').count()).resolves.toBe(0);

    // The run, its steps and logs came from one stream: no read of the run, its steps or its logs.
    const stream = `GET /api/v1/executions/${executionId}/events`;
    expect(sent.all.filter((line) => line === stream)).toHaveLength(1);
    const reads = sent.all.filter((line) => line.startsWith(`GET /api/v1/executions/${executionId}`));
    expect(reads.filter((line) => /\/(steps|logs)(\?|$)/.test(line) || line.endsWith(executionId))).toEqual([]);
    // Logs as the API has them, each once.
    const logs = await apiGet(`/executions/${executionId}/logs`);
    await expect(page.getByRole('list', { name: 'Log lines' }).locator(':scope > li').count()).resolves.toBe(
      logs.data.length,
    );
    await checkA11y('run (ended)');
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('resumes a dropped stream with Last-Event-ID, missing nothing and showing nothing twice', async () => {
  const gate = holdAt('/gate-drop');
  const botId = await gatedBot('dropped stream', '/gate-drop');
  const { context, page, guard } = await openConsole(f.browser, { width: 1280, height: 800 });
  // The first connection is cut after the first step's event (the proxy in between gave up);
  // later ones go through. Each connection's Last-Event-ID is kept.
  const lastEventIds: (string | undefined)[] = [];
  let cutAfter: string | undefined;
  await page.route('**/api/v1/executions/*/events', async (route) => {
    const headers = route.request().headers();
    lastEventIds.push(headers['last-event-id']);
    if (lastEventIds.length > 1) return route.continue();
    const upstream = await fetch(route.request().url(), { headers });
    const reader = upstream.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!/event: step\n(.+\n)*\n/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const body = /^[^]*?event: step\n(.+\n)*\n/.exec(text)![0];
    cutAfter = [...body.matchAll(/^id: ?(.*)$/gm)].at(-1)?.[1];
    await route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body });
  });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    const executionId = await trigger(botId);
    await page.goto(`${f.baseUrl}/console/runs/${executionId}`);
    await f.site.waitForRequest((r) => r.path === '/gate-drop', 30_000);
    // Reconnected (after the API's `retry` delay) from where the cut left off.
    await waitUntil(() => lastEventIds.length === 2, { timeoutMs: 20_000, message: 'the reconnect' });
    expect(cutAfter).toBeDefined();
    expect(lastEventIds).toEqual([undefined, cutAfter]);
    await page.getByText('updating live').waitFor();

    gate.release();
    await page.locator('.run-status .badge-completed').waitFor({ timeout: 30_000 });
    const outputs = page.getByTestId('step-outputs').locator(':scope > li .output-index');
    await waitUntil(async () => (await outputs.count()) === 3, { timeoutMs: 10_000, message: 'three steps' });
    await expect(outputs.allTextContents()).resolves.toEqual(['1.', '2.', '3.']);
    const logs = await apiGet(`/executions/${executionId}/logs`);
    await expect(page.getByRole('list', { name: 'Log lines' }).locator(':scope > li').count()).resolves.toBe(
      logs.data.length,
    );
    expect(lastEventIds).toHaveLength(2);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('keeps the runs list live from the organization’s stream, without polling', async () => {
  const gate = holdAt('/gate-list');
  const botId = await gatedBot('listed run', '/gate-list');
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.read);
    const sent = recordApiRequests(page);
    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    // The stream is open before the run starts: the new run is heard, not found by a poll.
    await waitUntil(() => sent.all.some((line) => line.startsWith('GET /api/v1/executions/events')), {
      timeoutMs: 10_000,
      message: 'the organization stream',
    });
    const executionId = await trigger(botId);
    const card = page
      .getByTestId('runs-list')
      .locator(':scope > li', { has: page.locator(`a[href$="${executionId}"]`) });
    await card.locator('.badge-running').waitFor({ timeout: 30_000 });
    await f.site.waitForRequest((r) => r.path === '/gate-list', 30_000);
    await checkA11y('runs (live)');

    await settled(sent);
    const before = sent.all.length;
    await page.waitForTimeout(QUIET_WINDOW_MS);
    expect(sent.all.slice(before)).toEqual([]);

    gate.release();
    await card.locator('.badge-completed').waitFor({ timeout: 30_000 });
    // Heard once: the stream was never reopened, and nothing was read on a timer.
    expect(sent.all.filter((line) => line.startsWith('GET /api/v1/executions/events'))).toHaveLength(1);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);
