import type { Page } from 'playwright-core';
import { createMemorySession, SHOP_PAGE, useBrowserFixture } from '../testing';
import { runSandboxedScript, type SandboxedScriptOptions } from './run-sandboxed-script';
import { SANDBOX_LIMITS } from './limits';
import { ScriptError } from './script-error';
import { stopSpareSandboxThread, threadResourceLimits } from './sandbox-thread-host';

const fixture = useBrowserFixture({ routes: { '/shop': SHOP_PAGE } });
let page: Page;
beforeAll(async () => {
  page = await fixture.newPage('/shop');
  await expectHealthy(); // Warms up: later runs get a thread started ahead of time.
});
afterAll(() => {
  stopSpareSandboxThread();
});

type Extra = Partial<Omit<SandboxedScriptOptions, 'source' | 'page'>>;

async function failureOf(source: string, extra: Extra = {}): Promise<ScriptError> {
  const error: unknown = await runSandboxedScript({
    source,
    page,
    session: createMemorySession(),
    timeoutMs: 5_000,
    ...extra,
  }).then(
    () => new Error('the script was expected to fail'),
    (e: unknown) => e,
  );
  if (!(error instanceof ScriptError)) throw error;
  return error;
}

const GOOD_SCRIPT = `export default async ({ page, params }) => ({ title: await page.title(), echo: params.echo })`;

async function expectHealthy(): Promise<void> {
  const session = createMemorySession({ params: { echo: 'still here' } });
  await expect(runSandboxedScript({ source: GOOD_SCRIPT, page, session, timeoutMs: 10_000 })).resolves.toEqual({
    title: 'Fixture shop',
    echo: 'still here',
  });
}

describe('the sandbox thread', () => {
  it('stops a script whose every loop pass is one long built-in call, which QuickJS never interrupts', async () => {
    // QuickJS polls its interrupt handler every ~10k backward jumps or calls; each pass here is
    // one join of a million elements, so on the worker's main thread this ran for minutes.
    const session = createMemorySession();
    const started = Date.now();
    const error = await failureOf(
      `export default async ({ page, step, log }) => {
        log('looping');
        await step('forever', async () => {
          await page.title();
          const a = new Array(1e6).fill('ab');
          for (;;) a.join(',');
        });
      }`,
      { timeoutMs: 1_500, session },
    );
    const elapsed = Date.now() - started;
    expect(error.message).toBe('Script timed out after 1500 ms');
    expect(error.reason).toBe('timeout');
    expect(elapsed).toBeLessThan(1_500 + 1_000);
    // The thread was killed mid-call; the host kept the log line and failed the open step.
    expect(session.logs).toEqual([{ level: 'info', source: 'script', message: 'looping' }]);
    expect(session.steps.map((s) => [s.index, s.action, s.status, s.error])).toEqual([
      [0, 'forever', 'failed', 'Script timed out after 1500 ms'],
    ]);
    await expectHealthy();
  });

  it('stops a script stuck in one long built-in call while a page call is in flight', async () => {
    const started = Date.now();
    const error = await failureOf(
      `export default async ({ page }) => {
        const pending = page.waitForTimeout(60000);
        const a = new Array(1e6).fill('ab');
        for (;;) a.join(',');
      }`,
      { timeoutMs: 400 },
    );
    expect(error.message).toBe('Script timed out after 400 ms');
    expect(Date.now() - started).toBeLessThan(400 + 1_000);
    await expectHealthy();
  });

  it('maps a thread killed by its V8 heap limit to the memory failure', async () => {
    // The QuickJS heap stays small (one 1.6 MB array), but every step's data crosses into the
    // thread's V8 heap as 1e5 separate strings, and the events of one job-queue round are only
    // sent when the round ends. At ~12 MB a step, the default limits (2 × 64 + 64 MiB) end the
    // thread after a dozen steps.
    expect(threadResourceLimits(SANDBOX_LIMITS.defaultMemoryLimitBytes).maxOldGenerationSizeMb).toBe(192);
    const session = createMemorySession();
    const started = Date.now();
    const error = await failureOf(
      `export default async ({ step }) => {
        const big = new Array(1e5).fill('x'.repeat(100));
        for (let i = 0; i < 1000; i++) await step('s' + i, async () => big);
      }`,
      { session, timeoutMs: 30_000 },
    );
    expect(error.message).toBe('Script exceeded its memory limit');
    expect(error.reason).toBe('memory');
    expect((error.cause as { code?: string } | undefined)?.code).toBe('ERR_WORKER_OUT_OF_MEMORY');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(session.logs).toEqual([]);
    await expectHealthy();
  }, 60_000);

  it('runs scripts side by side, each in its own thread', async () => {
    const sources = [1, 2, 3].map(
      (n) =>
        `export default async ({ page, step }) => step('s${n}', async () => ({ n: ${n}, title: await page.title() }))`,
    );
    const sessions = sources.map(() => createMemorySession());
    const results = await Promise.all(
      sources.map((source, i) => runSandboxedScript({ source, page, session: sessions[i]!, timeoutMs: 10_000 })),
    );
    expect(results).toEqual([1, 2, 3].map((n) => ({ n, title: 'Fixture shop' })));
    expect(sessions.map((s) => s.steps.map((step) => step.action))).toEqual([['s1'], ['s2'], ['s3']]);
  });
});
