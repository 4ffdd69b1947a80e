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
  // Deadlines for work that should finish are generous: a loaded machine may take many seconds.
  await expect(runSandboxedScript({ source: GOOD_SCRIPT, page, session, timeoutMs: 30_000 })).resolves.toEqual({
    title: 'Fixture shop',
    echo: 'still here',
  });
}

/**
 * Long enough for a thread to start and the script to reach its loop on a saturated machine (1.5 s
 * was not: the deadline passed before the script's first line); what is tested is that the stuck
 * call is stopped at all.
 */
const SCRIPT_TIMEOUT_MS = 15_000;

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
      { timeoutMs: SCRIPT_TIMEOUT_MS, session },
    );
    const elapsed = Date.now() - started;
    expect(error.message).toBe(`Script timed out after ${SCRIPT_TIMEOUT_MS} ms`);
    expect(error.reason).toBe('timeout');
    // Generous for a loaded machine (starting and ending a thread); what it rules out is forever.
    expect(elapsed).toBeLessThan(SCRIPT_TIMEOUT_MS + 15_000);
    // The thread was killed mid-call; the host kept the log line and failed the open step.
    expect(session.logs).toEqual([{ level: 'info', source: 'script', message: 'looping' }]);
    expect(session.steps.map((s) => [s.index, s.action, s.status, s.error])).toEqual([
      [0, 'forever', 'failed', `Script timed out after ${SCRIPT_TIMEOUT_MS} ms`],
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
    expect(Date.now() - started).toBeLessThan(400 + 15_000); // the call in flight waits 60 s
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
      { session, timeoutMs: 50_000 },
    );
    expect(error.message).toBe('Script exceeded its memory limit');
    expect(error.reason).toBe('memory');
    expect((error.cause as { code?: string } | undefined)?.code).toBe('ERR_WORKER_OUT_OF_MEMORY');
    expect(Date.now() - started).toBeLessThan(50_000); // the memory limit ended it, not its deadline
    expect(session.logs).toEqual([]);
    await expectHealthy();
  }, 90_000);

  it('runs scripts side by side, each in its own thread', async () => {
    const sources = [1, 2, 3].map(
      (n) =>
        `export default async ({ page, step }) => step('s${n}', async () => ({ n: ${n}, title: await page.title() }))`,
    );
    const sessions = sources.map(() => createMemorySession());
    const results = await Promise.all(
      sources.map((source, i) => runSandboxedScript({ source, page, session: sessions[i]!, timeoutMs: 30_000 })),
    );
    expect(results).toEqual([1, 2, 3].map((n) => ({ n, title: 'Fixture shop' })));
    expect(sessions.map((s) => s.steps.map((step) => step.action))).toEqual([['s1'], ['s2'], ['s3']]);
  });
});
