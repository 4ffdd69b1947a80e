import type { Browser } from 'playwright-core';
import { assertCatalogData, type CatalogData } from './fixture-site';
import { startCpuMeter, type CpuUse } from './process-tree-cpu';

export type BarePhase = 'newContext' | 'newPage' | 'goto' | 'extract' | 'close';

export interface BareLoopResult {
  runs: number;
  /** First run started to last run ended. */
  windowMs: number;
  /** CPU used over the window by this process and by Chromium. */
  cpu: CpuUse;
  /** Each run, context creation to context closed. */
  runMs: number[];
  /** Each part of each run, to compare with the worker's step timings. */
  phasesMs: Record<BarePhase, number[]>;
}

type Phase = BarePhase;

/**
 * The page work of one execution with nothing around it: fresh context, new page, goto with
 * the worker's wait condition ('load'), then the bot's three steps done directly, then close.
 */
async function runOnce(browser: Browser, url: string, phases: Record<Phase, number[]>): Promise<number> {
  const started = performance.now();
  let mark = started;
  const lap = (phase: Phase) => {
    const now = performance.now();
    phases[phase].push(now - mark);
    mark = now;
  };
  const context = await browser.newContext();
  lap('newContext');
  try {
    const page = await context.newPage();
    lap('newPage');
    await page.goto(url, { waitUntil: 'load', timeout: 15_000 });
    lap('goto');
    const items = page.locator('#items .item');
    await items.first().waitFor({ state: 'visible', timeout: 15_000 });
    const title = await page.locator('#title').first().textContent({ timeout: 15_000 });
    // One round trip for all rows, as the worker's CSS fast path does.
    const rows = await items.evaluateAll((elements) =>
      elements.map((el) => ({
        name: (el.querySelector('.name')?.textContent ?? '').trim(),
        price: (el.querySelector('.price')?.textContent ?? '').trim(),
        url: el.querySelector('a')?.getAttribute('href') ?? null,
      })),
    );
    const data: CatalogData = { title: title?.trim() ?? null, items: rows };
    assertCatalogData(data, 'bare loop');
    lap('extract');
  } finally {
    await context.close();
    lap('close');
  }
  return performance.now() - started;
}

/** `runs` runs, at most `concurrency` at once, on one already-launched browser. */
export async function runBareLoop(options: {
  browser: Browser;
  url: string;
  runs: number;
  concurrency: number;
}): Promise<BareLoopResult> {
  const phases: Record<Phase, number[]> = { newContext: [], newPage: [], goto: [], extract: [], close: [] };
  const durations: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < options.runs) {
      next++;
      durations.push(await runOnce(options.browser, options.url, phases));
    }
  };
  const cpuUsed = startCpuMeter();
  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return {
    runs: options.runs,
    windowMs: performance.now() - started,
    cpu: cpuUsed(),
    runMs: durations,
    phasesMs: phases,
  };
}
