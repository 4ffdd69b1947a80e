import { chromiumChildren, listProcesses, processTree, waitUntil, type ProcessInfo } from '@botfleet/testkit';
import { createTestBrowserHost, useBrowserFixture } from './testing';
import type { BrowserHost } from './browser-host';

/** The Chromium main process this Jest worker started for `host`, found by diffing our children. */
async function launchAndFindProcess(host: BrowserHost, before: ProcessInfo[]) {
  const browser = await host.getBrowser();
  const known = new Set(before.map((p) => p.pid));
  const fresh = chromiumChildren().filter((p) => !known.has(p.pid));
  expect(fresh).toHaveLength(1);
  return { browser, main: fresh[0]! };
}

describe('createBrowserHost', () => {
  const fixture = useBrowserFixture();

  it('shares one launch between concurrent callers', async () => {
    const [a, b, c] = await Promise.all([
      fixture.host.getBrowser(),
      fixture.host.getBrowser(),
      fixture.host.getBrowser(),
    ]);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(a.isConnected()).toBe(true);
  });

  it('relaunches after the browser was closed', async () => {
    const first = await fixture.host.getBrowser();
    await first.close();
    const second = await fixture.host.getBrowser();
    expect(second).not.toBe(first);
    const page = await second.newPage();
    expect(await page.evaluate(() => 1 + 1)).toBe(2);
    await page.close();
  });

  it('relaunches after the Chromium process was killed', async () => {
    const first = await fixture.host.getBrowser();
    const before = chromiumChildren();
    // The current browser is one of our children; kill all of them (only this host's exist).
    expect(before.length).toBeGreaterThanOrEqual(1);
    for (const p of before) process.kill(p.pid, 'SIGKILL');
    await waitUntil(() => !first.isConnected(), { message: 'browser should notice its process died' });
    const second = await fixture.host.getBrowser();
    expect(second).not.toBe(first);
    expect(second.isConnected()).toBe(true);
    const context = await second.newContext();
    const page = await context.newPage();
    await page.setContent('<p>alive</p>');
    expect(await page.textContent('p')).toBe('alive');
    await context.close();
  });
});

describe('BrowserHost.close', () => {
  it('leaves no Chromium process behind and refuses further use', async () => {
    const host = createTestBrowserHost();
    const { main } = await launchAndFindProcess(host, chromiumChildren());
    const tree = processTree(main.pid);
    // Browser, zygotes, utility/renderer processes: the whole tree must go.
    expect(tree.length).toBeGreaterThan(1);

    await host.close();
    // Gone from the process table, not merely dead: a zombie would mean nobody reaped it.
    const gone = () => {
      const alive = new Set(listProcesses().map((p) => p.pid));
      return tree.every((p) => !alive.has(p.pid));
    };
    await waitUntil(gone, {
      timeoutMs: 5_000,
      message: `chromium processes still running: ${tree.map((p) => p.pid).join(', ')}`,
    });
    await expect(host.getBrowser()).rejects.toThrow('Browser host is closed');
  });

  it('closes a browser that was still launching', async () => {
    const host = createTestBrowserHost();
    const before = new Set(chromiumChildren().map((p) => p.pid));
    const pending = host.getBrowser();
    await host.close();
    await expect(pending).rejects.toThrow('Browser host is closed');
    await waitUntil(() => chromiumChildren().every((p) => before.has(p.pid)), {
      message: 'a launched browser survived close()',
    });
  });
});
