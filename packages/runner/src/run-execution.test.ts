import { indexSteps, type Capabilities, type RunOutcome, type StepInput } from '@botfleet/core';
import { startTestProxy, waitUntil } from '@botfleet/testkit';
import type { Page } from 'playwright-core';
import { InfrastructureError } from './errors';
import { createProxyPool } from './proxy-pool';
import { runExecution, type RunExecutionOptions } from './run-execution';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture, type MemorySession } from './testing';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe('runExecution', () => {
  const fixture = useBrowserFixture({
    routes: {
      '/': '<!doctype html><title>Home</title><h1>Welcome</h1><p id="price">9.99</p>',
      // Answers headers but never finishes the body: the page never reaches 'load'.
      '/slow': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<h1>loading forever');
      },
    },
  });

  function run(overrides: Partial<RunExecutionOptions> & { session?: MemorySession } = {}): Promise<RunOutcome> {
    return runExecution({
      browserHost: fixture.host,
      targetUrl: fixture.server.url('/'),
      capabilities: {},
      timeoutMs: 20_000,
      session: createMemorySession(),
      program: async () => null,
      ...overrides,
    });
  }

  const stepsProgram =
    (...input: StepInput[]) =>
    (page: Page, session: MemorySession | Parameters<typeof runSteps>[2]) =>
      runSteps(page, indexSteps(input), session);

  it('opens the target URL and returns the program data', async () => {
    const session = createMemorySession();
    const outcome = await run({
      session,
      program: stepsProgram({ action: 'extract', name: 'price', selector: '#price' }),
    });
    expect(outcome).toEqual({ status: 'completed', data: { price: '9.99' } });
    expect(session.steps).toHaveLength(1);
    expect(session.logs.map((l) => l.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Opened http:\/\/127\.0\.0\.1:\d+\/ in \d+ ms$/)]),
    );
  });

  it('applies every capability inside the page', async () => {
    const capabilities: Capabilities = {
      locale: 'fr-FR',
      timezone: 'Asia/Tokyo',
      userAgent: 'BotfleetTest/1.0 (+https://botfleet.test)',
      resolution: { width: 1111, height: 666 },
      geolocation: { latitude: 48.8566, longitude: 2.3522 },
    };
    const outcome = await run({
      capabilities,
      program: (page) =>
        page.evaluate(
          () =>
            new Promise((resolve, reject) => {
              navigator.geolocation.getCurrentPosition(
                (position) =>
                  resolve({
                    language: navigator.language,
                    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
                    userAgent: navigator.userAgent,
                    width: window.innerWidth,
                    height: window.innerHeight,
                    latitude: position.coords.latitude,
                    longitude: position.coords.longitude,
                  }),
                (error) => reject(new Error(error.message)),
                { timeout: 5000 },
              );
            }),
        ),
    });
    expect(outcome).toEqual({
      status: 'completed',
      data: {
        language: 'fr-FR',
        timeZone: 'Asia/Tokyo',
        userAgent: 'BotfleetTest/1.0 (+https://botfleet.test)',
        width: 1111,
        height: 666,
        latitude: 48.8566,
        longitude: 2.3522,
      },
    });
    // The locale also reaches servers, as Accept-Language.
    const lastHome = fixture.server.requests.filter((r) => r.path === '/').at(-1)!;
    expect(lastHome.headers['accept-language']).toMatch(/^fr-FR/);
    expect(lastHome.headers['user-agent']).toBe('BotfleetTest/1.0 (+https://botfleet.test)');
  });

  it('uses a fresh context per run: nothing carries over', async () => {
    const first = await run({
      program: (page) => page.evaluate(() => (localStorage.setItem('k', 'v'), (document.cookie = 'c=1'), 'set')),
    });
    expect(first.status).toBe('completed');
    const second = await run({
      program: (page) => page.evaluate(() => ({ item: localStorage.getItem('k'), cookie: document.cookie })),
    });
    expect(second).toEqual({ status: 'completed', data: { item: null, cookie: '' } });
  });

  describe('proxy routing', () => {
    it('sends traffic for an unresolvable host through the proxy, with credentials from the URL', async () => {
      const proxy = await startTestProxy({ credentials: { username: 'bot', password: 'p@ss:word' } });
      try {
        const session = createMemorySession();
        const outcome = await run({
          session,
          targetUrl: 'http://proxied.botfleet.test/catalog',
          capabilities: { proxy: true },
          proxyPool: createProxyPool([proxy.proxyUrl]),
          program: stepsProgram({ action: 'extract', name: 'via', selector: '#via' }),
        });
        expect(outcome).toEqual({
          status: 'completed',
          data: { via: 'served by test proxy for http://proxied.botfleet.test/catalog' },
        });
        const authorized = proxy.requests.filter((r) => r.proxyAuthorization !== null);
        expect(authorized[0]).toMatchObject({
          url: 'http://proxied.botfleet.test/catalog',
          proxyAuthorization: `Basic ${Buffer.from('bot:p@ss:word').toString('base64')}`,
        });
        // Logs name the proxy without its password.
        const proxyLog = session.logs.find((l) => l.message.startsWith('Routing browser traffic'))!;
        expect(proxyLog.message).toBe(`Routing browser traffic through proxy http://127.0.0.1:${proxy.port}`);
      } finally {
        await proxy.close();
      }
    });

    it('fails the execution when a proxy is requested and the pool is empty', async () => {
      const outcome = await run({ capabilities: { proxy: true }, proxyPool: createProxyPool([]) });
      expect(outcome).toEqual({
        status: 'failed',
        error: 'Proxy routing requested but no proxies are configured (PROXY_URLS is empty)',
        stepIndex: null,
        screenshot: null,
        // The run held no secret value: nothing asks for its screenshot to be sealed.
        sealScreenshot: false,
      });
    });

    it('does not reach a made-up host without the proxy', async () => {
      const outcome = await run({ targetUrl: 'http://proxied.botfleet.test/' });
      expect(outcome).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/^Could not open http:\/\/proxied\.botfleet\.test\/: net::ERR_NAME_NOT_RESOLVED/),
      });
    });
  });

  describe('failures', () => {
    it('reports a missing selector with its step index and a PNG screenshot', async () => {
      const session = createMemorySession();
      const outcome = await run({
        session,
        program: stepsProgram(
          { action: 'extract', name: 'title', selector: 'h1' },
          { action: 'waitFor', ms: 10 },
          { action: 'click', selector: '#missing', timeout: 1000 },
        ),
      });
      expect(outcome).toMatchObject({
        status: 'failed',
        error: 'Step 3 (click "#missing") failed: Timeout 1000ms exceeded waiting for selector "#missing"',
        stepIndex: 2,
      });
      const screenshot = (outcome as { screenshot: Buffer | null }).screenshot;
      expect(screenshot?.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect(session.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'failed']);
    });

    it('times out a program that hangs', async () => {
      const started = Date.now();
      const outcome = await run({ timeoutMs: 1500, program: () => new Promise(() => undefined) });
      const elapsed = Date.now() - started;
      expect(outcome).toMatchObject({ status: 'timed_out', error: 'Execution timed out after 1.5 s', stepIndex: null });
      expect((outcome as { screenshot: Buffer | null }).screenshot?.subarray(0, 8)).toEqual(PNG_SIGNATURE);
      expect(elapsed).toBeGreaterThanOrEqual(1500);
      expect(elapsed).toBeLessThan(20_000); // generous for a loaded machine; the program hangs for ever
    });

    it('times out a waitFor longer than the execution, naming the step', async () => {
      const session = createMemorySession();
      const outcome = await run({
        session,
        timeoutMs: 2500,
        program: stepsProgram({ action: 'waitFor', ms: 1 }, { action: 'waitFor', selector: '#never', timeout: 30_000 }),
      });
      expect(outcome).toMatchObject({ status: 'timed_out', error: 'Execution timed out after 2.5 s', stepIndex: 1 });
      expect(session.steps.map((s) => s.status)).toEqual(['completed', 'failed']);
    });

    it('times out a target page that never finishes loading', async () => {
      const outcome = await run({ targetUrl: fixture.server.url('/slow'), timeoutMs: 1200 });
      expect(outcome).toMatchObject({ status: 'timed_out', error: 'Execution timed out after 1.2 s', stepIndex: null });
    });

    it('drops what an abandoned program does after the run ended', async () => {
      const session = createMemorySession();
      let release: () => void = () => undefined;
      const outcome = await run({
        session,
        timeoutMs: 800,
        program: async (_page, s) => {
          await new Promise<void>((resolve) => (release = resolve));
          s.log('info', 'script', 'too late');
          s.recordStep({
            index: 0,
            action: 'click',
            status: 'completed',
            data: null,
            error: null,
            startedAt: 0,
            durationMs: 0,
          });
        },
      });
      expect(outcome.status).toBe('timed_out');
      release();
      await new Promise((resolve) => setImmediate(resolve));
      expect(session.steps).toEqual([]);
      expect(session.logs.some((l) => l.message === 'too late')).toBe(false);
    });

    it('ends a cancelled run at once', async () => {
      const controller = new AbortController();
      const session = createMemorySession();
      const started = Date.now();
      const outcome = run({
        session,
        signal: controller.signal,
        program: stepsProgram({ action: 'waitFor', selector: '#never', timeout: 30_000 }),
      });
      await waitUntil(() => session.logs.some((l) => l.message.startsWith('Opened')), {
        message: 'the page should open',
      });
      controller.abort();
      expect(await outcome).toEqual({ status: 'cancelled' });
      expect(Date.now() - started).toBeLessThan(25_000); // generous for a loaded machine; the step waits 30 s
      expect(await run({ signal: AbortSignal.abort() })).toEqual({ status: 'cancelled' });
    });

    it('throws InfrastructureError when the browser dies mid-run, and the next run relaunches it', async () => {
      const outcome = run({
        program: async (page) => {
          await page.context().browser()!.close();
          await page.title();
        },
      });
      await expect(outcome).rejects.toBeInstanceOf(InfrastructureError);
      expect(await run({ program: (page) => page.title() })).toEqual({ status: 'completed', data: 'Home' });
    });
  });
});
