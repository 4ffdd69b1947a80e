import { waitUntil } from '@botfleet/testkit';
import { createBrowserHost, type BrowserHost, type BrowserRestartReason } from './browser-host';
import { readChromiumRssBytes } from './chromium-rss';
import { resolveChromiumPath } from './chromium-path';

/* Recycling the worker's Chromium between runs, with a real browser: no run loses its browser. */

const hosts: BrowserHost[] = [];
afterAll(async () => {
  for (const host of hosts) await host.close();
});

function newHost(options: { recycleAfterRuns?: number; maxRssMb?: number; readRssBytes?: () => Promise<number> }) {
  const restarts: BrowserRestartReason[] = [];
  const host = createBrowserHost({
    executablePath: resolveChromiumPath({ explicitPath: process.env.CHROMIUM_PATH }),
    onRestart: (reason) => restarts.push(reason),
    ...options,
  });
  hosts.push(host);
  return { host, restarts };
}

it('replaces the browser after its runs, closing the old one only once its last run released it', async () => {
  const { host, restarts } = newHost({ recycleAfterRuns: 2 });
  const first = await host.acquire();
  const second = await host.acquire();
  expect(second.browser).toBe(first.browser);
  second.release();

  // Two runs served: the next run gets a new browser while the first run is still going.
  const third = await host.acquire();
  expect(third.browser).not.toBe(first.browser);
  expect(restarts).toEqual(['runs']);
  const page = await (await first.browser.newContext()).newPage();
  expect(await page.evaluate(() => 6 * 7)).toBe(42);
  expect(first.browser.isConnected()).toBe(true);

  await page.context().close();
  first.release();
  await waitUntil(() => !first.browser.isConnected(), { timeoutMs: 10_000, message: 'the old browser to close' });
  expect(third.browser.isConnected()).toBe(true);
  third.release();
  third.release(); // releasing twice is harmless
  expect((await host.acquire()).browser).toBe(third.browser);
});

it('replaces the browser when its memory passes the limit', async () => {
  const { host, restarts } = newHost({ maxRssMb: 100, readRssBytes: async () => 200 * 1024 * 1024 });
  const first = await host.acquire();
  first.release();
  const second = await host.acquire();
  expect(second.browser).not.toBe(first.browser);
  expect(restarts).toEqual(['memory']);
  await waitUntil(() => !first.browser.isConnected(), { timeoutMs: 10_000, message: 'the old browser to close' });
  second.release();
});

it('reads the memory of this process’s Chromium from /proc', async () => {
  const { host } = newHost({});
  const lease = await host.acquire();
  expect(await readChromiumRssBytes()).toBeGreaterThan(10 * 1024 * 1024);
  lease.release();
});
