import { startFixtureServer, type FixtureRoute, type FixtureServer } from '@botfleet/testkit';
import type { BrowserContext, Page } from 'playwright-core';
import type { BrowserHost } from '../browser-host';
import { createTestBrowserHost } from './browser';

export interface BrowserFixtureOptions {
  /** The fixture server's routes (more can be set later with `server.setRoute`). */
  routes?: Record<string, FixtureRoute>;
  /** Extra Chromium flags, given the started server (e.g. to map a made-up hostname to it). */
  browserArgs?: (server: FixtureServer) => readonly string[];
  /** Sends all browser traffic through this proxy (the egress proxy). */
  egressProxyUrl?: string;
}

export interface BrowserFixture {
  /** This file's loopback server. */
  readonly server: FixtureServer;
  /** This file's browser host: one Chromium, launched on first use, as in the worker. */
  readonly host: BrowserHost;
  /**
   * A page in a fresh context, showing `path` on the server when given. A context opened during
   * a test is closed after that test; one opened in beforeAll lives as long as the browser.
   */
  newPage(path?: string): Promise<Page>;
}

/**
 * A browser and a fixture server for the enclosing test file or describe block: started in
 * beforeAll, closed in afterAll. Pass options as a function when they depend on something another
 * beforeAll makes (a proxy, a port): it runs in this fixture's beforeAll, so declare those hooks
 * before calling useBrowserFixture (Jest runs beforeAll hooks in order).
 */
export function useBrowserFixture(options: BrowserFixtureOptions | (() => BrowserFixtureOptions) = {}): BrowserFixture {
  let started: { server: FixtureServer; host: BrowserHost } | undefined;
  /** Contexts opened by the running test; undefined outside tests. */
  let testContexts: BrowserContext[] | undefined;

  beforeAll(async () => {
    const { routes, browserArgs, egressProxyUrl } = typeof options === 'function' ? options() : options;
    const server = await startFixtureServer(routes);
    const host = createTestBrowserHost(
      browserArgs?.(server) ?? [],
      egressProxyUrl === undefined ? {} : { egressProxyUrl },
    );
    started = { server, host };
  });
  beforeEach(() => {
    testContexts = [];
  });
  afterEach(async () => {
    const contexts = testContexts ?? [];
    testContexts = undefined;
    await Promise.all(contexts.map((context) => context.close()));
  });
  afterAll(async () => {
    await started?.host.close();
    await started?.server.close();
  });

  const current = () => {
    if (!started)
      throw new Error('useBrowserFixture: its browser exists only inside tests and hooks declared after it');
    return started;
  };
  return {
    get server() {
      return current().server;
    },
    get host() {
      return current().host;
    },
    async newPage(path) {
      const { host, server } = current();
      const context = await (await host.getBrowser()).newContext();
      testContexts?.push(context);
      const page = await context.newPage();
      if (path !== undefined) await page.goto(server.url(path));
      return page;
    },
  };
}
