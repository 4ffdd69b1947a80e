import { CapabilitiesSchema, indexSteps, StepSchema, type RunOutcome, type StepInput } from '@botfleet/core';
import type { Page } from 'playwright-core';
import { OutputBudget, type OutputLimits } from './output-budget';
import { runExecution, type RunExecutionOptions } from './run-execution';
import type { RunSession } from './run-session';
import { runSandboxedScript } from './sandbox';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture, type MemorySession } from './testing';

const MiB = 1024 * 1024;

/**
 * A page whose #big holds `chars` characters, made in the page (the server sends a few bytes);
 * hidden, so Chromium does not spend the test laying out one 50 M-character line.
 */
const bigPage = (chars: number) =>
  `<!doctype html><body><p id="small">ok</p><div id="big" hidden></div><script>document.getElementById('big').textContent = 'x'.repeat(${chars});</script></body>`;

const fixture = useBrowserFixture({
  routes: {
    '/': '<!doctype html><body><p id="small">ok</p></body>',
    '/3mib': bigPage(3 * MiB),
    '/50mb': bigPage(50_000_000),
    '/90k': bigPage(90_000),
    // 400,000 characters of 3 UTF-8 bytes: within the bound as characters, past it as stored bytes.
    '/euro': `<!doctype html><body><div id="big" hidden></div><script>document.getElementById('big').textContent = '\u20ac'.repeat(400000);</script></body>`,
    '/tall':
      '<!doctype html><body style="margin:0"><div style="height:40000px;width:100px;background:red"></div></body>',
  },
});

function run(
  path: string,
  program: (page: Page, session: RunSession) => Promise<unknown>,
  overrides: Partial<RunExecutionOptions> & { session?: MemorySession } = {},
): Promise<RunOutcome> {
  return runExecution({
    browserHost: fixture.host,
    targetUrl: fixture.server.url(path),
    capabilities: {},
    timeoutMs: 30_000,
    session: createMemorySession(),
    program,
    ...overrides,
  });
}

const steps =
  (...input: StepInput[]) =>
  (page: Page, session: RunSession) =>
    runSteps(page, indexSteps(input), session);

const script = (source: string) => (page: Page, session: RunSession) => runSandboxedScript({ source, page, session });

/** Everything the session holds, as the database would store it. */
const storedBytes = (session: MemorySession) =>
  Buffer.byteLength(JSON.stringify(session.steps)) + session.logs.reduce((n, l) => n + Buffer.byteLength(l.message), 0);

describe('OutputBudget', () => {
  const limits: OutputLimits = { maxStepBytes: 100, maxExecutionBytes: 250 };
  const step = (index: number, data: unknown) => ({
    index,
    action: 'extract',
    status: 'completed' as const,
    data,
    error: null,
    startedAt: 0,
    durationMs: 1,
  });

  it('admits outputs within the bounds and replaces the first one past a step bound', async () => {
    const budget = new OutputBudget(limits);
    expect(budget.admitStep(step(0, 'a'.repeat(50)))).toMatchObject({ status: 'completed' });
    const refused = budget.admitStep(step(1, 'b'.repeat(200)));
    expect(refused).toMatchObject({ status: 'failed', data: null });
    expect(refused.error).toMatch(
      /^output_too_large: the output of step 2 is 202 bytes, over the bound of 100 bytes per step \(MAX_STEP_OUTPUT_BYTES\)$/,
    );
    await expect(budget.exceeded).resolves.toMatchObject({ stepIndex: 1 });
    // Tripped: nothing more gets in, however small.
    expect(budget.admitStep(step(2, 'c'))).toMatchObject({ status: 'failed', data: null });
  });

  it('fails the output that takes the run past its bound, and cuts logs instead of failing', () => {
    const budget = new OutputBudget(limits);
    expect(budget.admitStep(step(0, 'a'.repeat(90))).status).toBe('completed');
    expect(budget.admitStep(step(1, 'a'.repeat(90))).status).toBe('completed');
    expect(budget.stepAllowance()).toBe(250 - 184);
    expect(budget.admitLog('x'.repeat(60))).toBe('x'.repeat(60));
    expect(budget.admitLog('y'.repeat(60))).toMatch(/^Log output reached the run's bound of 250 bytes/);
    expect(budget.admitLog('z')).toBeNull();
    expect(budget.error).toBeNull();
    expect(budget.admitData({ big: 'x'.repeat(10) })?.message).toMatch(
      /^output_too_large: the run's extracted data \(\d+ bytes\) would take the run past its bound of 250 bytes/,
    );
  });

  it('counts multi-byte text in UTF-8 bytes, as it is stored', () => {
    const budget = new OutputBudget({ maxStepBytes: 100, maxExecutionBytes: 1000 });
    // 40 characters, 120 bytes.
    expect(budget.admitStep(step(0, '€'.repeat(40))).status).toBe('failed');
  });
});

describe('output bounds against real Chromium', () => {
  it('fails an extract past MAX_STEP_OUTPUT_BYTES at that step, storing nothing of it', async () => {
    const session = createMemorySession();
    const outcome = await run(
      '/3mib',
      steps(
        { action: 'extract', name: 'small', selector: '#small' },
        { action: 'extract', name: 'big', selector: '#big' },
        { action: 'extract', name: 'after', selector: '#small' },
      ),
      { session },
    );
    expect(outcome).toMatchObject({ status: 'failed', stepIndex: 1 });
    expect(outcome.status === 'failed' && outcome.error).toMatch(/output_too_large.*MAX_STEP_OUTPUT_BYTES/);
    expect(session.steps.map((s) => s.status)).toEqual(['completed', 'failed']);
    expect(session.steps[1]).toMatchObject({ data: null, error: expect.stringContaining('output_too_large') });
    expect(storedBytes(session)).toBeLessThan(20_000);
  });

  it('counts what is stored in UTF-8 bytes, and ends the run at once when a recorded output is refused', async () => {
    const session = createMemorySession();
    const outcome = await run(
      '/euro',
      steps(
        { action: 'extract', name: 'euros', selector: '#big' },
        { action: 'extract', name: 'after', selector: '#big' },
      ),
      { session },
    );
    expect(outcome).toMatchObject({ status: 'failed', stepIndex: 0 });
    expect(outcome.status === 'failed' && outcome.error).toMatch(
      /^output_too_large: the output of step 1 is 1200002 bytes, over the bound of 1048576 bytes per step \(MAX_STEP_OUTPUT_BYTES\)$/,
    );
    expect(session.steps).toEqual([expect.objectContaining({ index: 0, status: 'failed', data: null })]);
    // Nothing the abandoned program did after the refusal landed, not even its "completed" line.
    expect(session.logs.map((l) => l.message)).not.toContainEqual(expect.stringMatching(/^Step 1 .* completed/));
    expect(storedBytes(session)).toBeLessThan(20_000);
  });

  it('measures an extract of body on a 50 MB page inside the page, and the worker never holds it', async () => {
    const session = createMemorySession();
    const heapBefore = process.memoryUsage().heapUsed;
    // Without a trace: a trace of this failed run would hold the page's DOM snapshots (50 MB, in
    // this process while it is zipped), which is what a trace is for, not what is measured here.
    const outcome = await run('/50mb', steps({ action: 'extract', name: 'body', selector: 'body' }), {
      session,
      capabilities: { trace: 'off' },
    });
    expect(outcome).toMatchObject({ status: 'failed', stepIndex: 0 });
    expect(outcome.status === 'failed' && outcome.error).toMatch(/output_too_large: the value read from the page/);
    // 50 M characters would be 50-100 MB of heap had they crossed over; allow for noise.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(30 * MiB);
    expect(storedBytes(session)).toBeLessThan(20_000);
  });

  it('fails the step that takes the run past MAX_EXECUTION_OUTPUT_BYTES', async () => {
    const session = createMemorySession();
    const extract = (name: string): StepInput => ({ action: 'extract', name, selector: '#big' });
    const outcome = await run('/90k', steps(extract('a'), extract('b'), extract('c'), extract('d')), {
      session,
      outputLimits: { maxStepBytes: 100_000, maxExecutionBytes: 250_000 },
    });
    expect(outcome).toMatchObject({ status: 'failed', stepIndex: 2 });
    expect(outcome.status === 'failed' && outcome.error).toContain('output_too_large');
    expect(session.steps.map((s) => s.status)).toEqual(['completed', 'completed', 'failed']);
    expect(storedBytes(session)).toBeLessThan(250_000);
  });

  it('counts the extracted data against the run bound too', async () => {
    const session = createMemorySession();
    const outcome = await run(
      '/90k',
      steps({ action: 'extract', name: 'a', selector: '#big' }, { action: 'extract', name: 'b', selector: '#big' }),
      { session, outputLimits: { maxStepBytes: 100_000, maxExecutionBytes: 300_000 } },
    );
    expect(outcome).toMatchObject({ status: 'failed', stepIndex: null });
    expect(outcome.status === 'failed' && outcome.error).toMatch(/^output_too_large: the run's extracted data/);
  });

  it("fails a script's step past the bound and stops the script at once", async () => {
    const session = createMemorySession();
    const startedAt = Date.now();
    const outcome = await run(
      '/',
      script(`export default async ({ page, step }) => {
        for (let i = 0; i < 40; i++) {
          await step('big ' + i, async () => 'x'.repeat(3 * 1024 * 1024));
          // Where the step's output reaches the host; the run ends there, whatever comes next.
          await page.title();
        }
        await page.waitForTimeout(55_000);
      }`),
      { session, timeoutMs: 60_000 },
    );
    expect(outcome).toMatchObject({ status: 'failed', stepIndex: 0 });
    expect(outcome.status === 'failed' && outcome.error).toMatch(/^output_too_large: the output of step 1/);
    // Ended by the bound, not by the 60 s timeout.
    expect(Date.now() - startedAt).toBeLessThan(50_000);
    expect(session.steps).toEqual([expect.objectContaining({ index: 0, status: 'failed', data: null })]);
    expect(storedBytes(session)).toBeLessThan(20_000);
  });

  it("fails a script whose return value is past the run's bound", async () => {
    const outcome = await run('/', script(`export default async () => ({ big: 'x'.repeat(2 * 1024 * 1024) })`), {
      outputLimits: { maxStepBytes: MiB, maxExecutionBytes: MiB },
    });
    expect(outcome).toMatchObject({ status: 'failed', stepIndex: null });
    expect(outcome.status === 'failed' && outcome.error).toMatch(/^output_too_large: the run's extracted data/);
  });

  it('measures page.evaluate results inside the page before they cross over', async () => {
    const session = createMemorySession();
    const heapBefore = process.memoryUsage().heapUsed;
    const outcome = await run(
      '/',
      script(`export default async ({ page }) => {
        try {
          await page.evaluate(() => 'x'.repeat(40 * 1024 * 1024));
          return { threw: false };
        } catch (error) {
          return { threw: true, message: String(error.message) };
        }
      }`),
      { session },
    );
    expect(outcome).toMatchObject({ status: 'completed', data: { threw: true } });
    expect(outcome.status === 'completed' && (outcome.data as { message: string }).message).toMatch(
      /^output_too_large: the page returned 41943042 characters, over the 16777216 a page call may hand back$/,
    );
    // 40 M characters would be 40-80 MB of heap had they crossed over.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(30 * MiB);
  });

  it('measures reads and $$eval the same way, and refuses page functions that try to step around the measuring', async () => {
    const outcome = await run(
      '/50mb',
      script(`export default async ({ page }) => {
        const attempt = async (call) => {
          try {
            await call();
            return 'crossed over';
          } catch (error) {
            return String(error.message).slice(0, 60);
          }
        };
        return {
          textContent: await attempt(() => page.textContent('#big')),
          content: await attempt(() => page.content()),
          all: await attempt(() => page.$$eval('div', (els) => els.map((el) => el.textContent))),
          // Closes the wrapper's parenthesis to return the text unmeasured.
          escape: await attempt(() => page.evaluate("() => 1\\n); return document.body.textContent; (0")),
          small: await page.$eval('#small', (el) => el.textContent),
        };
      }`),
    );
    expect(outcome).toMatchObject({
      status: 'completed',
      data: {
        textContent: expect.stringMatching(/^output_too_large: the page returned 50000000 characters/),
        content: expect.stringMatching(/^output_too_large: the page returned \d+ characters/),
        all: expect.stringMatching(/^output_too_large: the page returned \d+ characters/),
        escape: expect.stringContaining('the page function must be a single function'),
        small: 'ok',
      },
    });
  });

  it('refuses viewports past 3840x2160 at write time and at run time', async () => {
    expect(CapabilitiesSchema.safeParse({ resolution: { width: 3840, height: 2160 } }).success).toBe(true);
    const tooWide = CapabilitiesSchema.safeParse({ resolution: { width: 3841, height: 1000 } });
    expect(tooWide.success || tooWide.error.issues[0]?.path).toEqual(['resolution', 'width']);
    const tooTall = StepSchema.safeParse({ index: 0, action: 'setViewport', width: 1000, height: 2161 });
    expect(tooTall.success || tooTall.error.issues[0]?.path).toEqual(['height']);

    // A manifest stored before the bound: refused when the context is made.
    const stored = await run('/', async () => null, { capabilities: { resolution: { width: 7680, height: 4320 } } });
    expect(stored).toMatchObject({ status: 'failed', error: expect.stringContaining('at most 3840x2160') });
    const scripted = await run(
      '/',
      script(`export default async ({ page }) => page.setViewportSize({ width: 5000, height: 1000 })`),
    );
    expect(scripted).toMatchObject({ status: 'failed', error: expect.stringContaining('at most 3840x2160') });
  });

  it('clips full-page screenshots of a 40,000 px page to 16,384 px', async () => {
    const session = createMemorySession();
    const outcome = await run('/tall', steps({ action: 'screenshot', fullPage: true }), { session });
    expect(outcome.status).toBe('completed');
    const [artifact] = [...session.artifacts.values()];
    // PNG: the IHDR chunk holds width and height as big-endian integers at bytes 16 and 20.
    expect(artifact!.data.readUInt32BE(20)).toBe(16_384);

    const scripted = createMemorySession();
    await run('/tall', script(`export default async ({ page }) => page.screenshot({ fullPage: true })`), {
      session: scripted,
    });
    expect([...scripted.artifacts.values()][0]!.data.readUInt32BE(20)).toBe(16_384);
  });
});
