import type { Browser, Page } from 'playwright-core';
import { runExecution } from './run-execution';
import { createMemorySession, useBrowserFixture } from './testing';

/*
 * Runs share the browser process and nothing else: a run of one organization leaves cookies,
 * storage, IndexedDB, caches, a granted permission and a service worker on an origin, and the
 * next run (another organization) on the same origin, in the same browser, finds none of them.
 */

let cachedHits = 0;
const fixture = useBrowserFixture({
  routes: {
    '/': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'server-set=a; Path=/; Max-Age=3600' });
      res.end('<!doctype html><title>Origin</title><p>origin</p>');
    },
    // A resource the HTTP cache may keep for an hour: a second request reaches the server only
    // if the run has no cache of its own from before.
    '/cached.txt': (_req, res) => {
      cachedHits++;
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'public, max-age=3600' });
      res.end('cached');
    },
    '/sw.js': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end("self.addEventListener('fetch', () => undefined);");
    },
  },
});

/** What a page on the origin can see of state left on it. */
interface OriginState {
  cookies: string;
  localStorage: number;
  sessionStorage: number;
  indexedDB: string[];
  cacheStorage: string[];
  serviceWorkers: number;
  geolocation: PermissionState;
}

function readOriginState(page: Page): Promise<OriginState> {
  return page.evaluate(async () => ({
    cookies: document.cookie,
    localStorage: localStorage.length,
    sessionStorage: sessionStorage.length,
    indexedDB: (await indexedDB.databases()).map((db) => db.name ?? ''),
    cacheStorage: await caches.keys(),
    serviceWorkers: (await navigator.serviceWorker.getRegistrations()).length,
    geolocation: (await navigator.permissions.query({ name: 'geolocation' })).state,
  }));
}

async function run(program: (page: Page) => Promise<unknown>): Promise<{ data: unknown; browser: Browser | null }> {
  let browser: Browser | null = null;
  const outcome = await runExecution({
    browserHost: fixture.host,
    targetUrl: fixture.server.url('/'),
    capabilities: {},
    timeoutMs: 20_000,
    session: createMemorySession(),
    program: async (page) => {
      browser = page.context().browser();
      return program(page);
    },
  });
  if (outcome.status !== 'completed') throw new Error(`run ended ${outcome.status}`);
  return { data: outcome.data, browser };
}

it('leaves nothing of one run to the next on the same origin and browser', async () => {
  const first = await run(async (page) => {
    // A permission granted during the run, as a run's own context options would.
    await page.context().grantPermissions(['geolocation'], { origin: fixture.server.origin });
    await page.evaluate(async () => {
      document.cookie = 'script-set=a; Max-Age=3600';
      localStorage.setItem('left', 'a');
      sessionStorage.setItem('left', 'a');
      await new Promise<void>((resolve, reject) => {
        const open = indexedDB.open('left-behind', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('things');
        open.onsuccess = () => {
          open.result.close();
          resolve();
        };
        open.onerror = () => reject(open.error);
      });
      await (await caches.open('left-behind')).put('/kept', new Response('kept'));
      await fetch('/cached.txt');
      await navigator.serviceWorker.register('/sw.js');
      await navigator.serviceWorker.ready;
    });
    return readOriginState(page);
  });
  // The first run really left everything behind in its own context.
  expect(first.data).toEqual({
    cookies: expect.stringContaining('script-set=a'),
    localStorage: 1,
    sessionStorage: 1,
    indexedDB: ['left-behind'],
    cacheStorage: ['left-behind'],
    serviceWorkers: 1,
    geolocation: 'granted',
  });
  expect((first.data as OriginState).cookies).toContain('server-set=a');
  expect(cachedHits).toBe(1);

  const second = await run(async (page) => {
    // Without an HTTP cache of the first run's, this request reaches the server again.
    await page.evaluate(() => fetch('/cached.txt').then((response) => response.text()));
    // Only what the second run's own page load set: the server's cookie, nothing else.
    return readOriginState(page);
  });
  expect(second.browser).toBe(first.browser);
  expect(second.data).toEqual({
    cookies: 'server-set=a',
    localStorage: 0,
    sessionStorage: 0,
    indexedDB: [],
    cacheStorage: [],
    serviceWorkers: 0,
    geolocation: 'prompt',
  });
  expect(cachedHits).toBe(2);
});
