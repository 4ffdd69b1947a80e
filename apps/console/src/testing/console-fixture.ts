import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import type { RoleHandle } from '@botfleet/core';
import { createTestBrowserHost } from '@botfleet/runner/testing';
import {
  startFixtureServer,
  startReceiver,
  type FixtureRoute,
  type FixtureServer,
  type TestReceiver,
} from '@botfleet/testkit';
import { startTestDelivery, startTestWorker } from '@botfleet/worker/testing';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';

const ROOT = join(__dirname, '..', '..', '..', '..');

/**
 * Builds the console when its output is stale, with the set-up's own step (scripts/setup.mjs), so
 * `npx jest apps/console` works without `npm test` having run first.
 */
export function ensureConsoleBuilt(): void {
  const result = spawnSync(
    process.execPath,
    ['-e', "import('./scripts/setup.mjs').then((s) => s.ensureConsoleBuilt())"],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('building the console failed');
}

/** A search site for the recording to drive: the form, and results that echo the query. */
export const BOOK_SITE: Record<string, FixtureRoute> = {
  '/search': `<!doctype html><html lang="en"><title>Search</title><body><form action="/results" method="GET">
    <label for="q">Search terms</label><input id="q" name="q"></form></body></html>`,
  '/results': (req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('q') ?? '';
    const safe = q.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    res.writeHead(200, { 'content-type': 'text/html' }).end(
      `<!doctype html><html lang="en"><title>Results</title><body><p id="summary">${safe}</p>
       <ol><li class="result">Dune</li><li class="result">Dune Messiah</li></ol></body></html>`,
    );
  },
};

/** A Chrome Recorder export that searches BOOK_SITE for the run's `query` parameter. */
export function bookSearchRecording(origin: string): Record<string, unknown> {
  return {
    title: 'Book search',
    steps: [
      {
        type: 'setViewport',
        width: 1024,
        height: 768,
        deviceScaleFactor: 1,
        isMobile: false,
        hasTouch: false,
        isLandscape: false,
      },
      {
        type: 'navigate',
        url: `${origin}/search`,
        assertedEvents: [{ type: 'navigation', url: `${origin}/search`, title: 'Search' }],
      },
      { type: 'change', value: '{{params.query}}', selectors: [['aria/Search terms'], ['#q']], target: 'main' },
      { type: 'keyDown', key: 'Enter', target: 'main' },
      { type: 'keyUp', key: 'Enter', target: 'main', assertedEvents: [{ type: 'navigation', title: 'Results' }] },
      { type: 'waitForElement', selectors: [['.result']], operator: '>=', count: 1 },
    ],
  };
}

/**
 * A running botfleet for the console: the API on a port of 127.0.0.1 (serving /console), a worker
 * (Chromium) and a delivery role on its queues, the book site and a webhook receiver, and one
 * Chromium for the test to drive.
 */
export interface ConsoleFixture {
  api: ApiHarness;
  org: TestOrg;
  baseUrl: string;
  site: FixtureServer;
  receiver: TestReceiver;
  browser: Browser;
  close(): Promise<void>;
}

export async function startConsoleFixture(): Promise<ConsoleFixture> {
  ensureConsoleBuilt();
  const api = await createApiHarness();
  const org = await api.newOrg();
  const { port } = await api.listen();
  const roles: RoleHandle[] = [await startTestWorker(api, org), await startTestDelivery(api)];
  const site = await startFixtureServer(BOOK_SITE);
  const receiver = await startReceiver();
  const host = createTestBrowserHost();
  const browser = await host.getBrowser();
  return {
    api,
    org,
    baseUrl: `http://127.0.0.1:${port}`,
    site,
    receiver,
    browser,
    async close() {
      await host.close();
      for (const role of roles.reverse()) await role.stop();
      await Promise.all([site.close(), receiver.close()]);
      await api.close();
    },
  };
}
