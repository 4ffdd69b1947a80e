/**
 * Measures what one execution costs besides the bot's own work: runExecution with an empty
 * program and with a 20-item extraction, against bare Playwright doing the same, on loopback.
 *
 *   npx tsx packages/runner/scripts/measure-overhead.ts [runs]
 */
import { indexSteps } from '@botfleet/core';
import { startFixtureServer } from '@botfleet/testkit';
import { createBrowserHost, resolveChromiumPath, runExecution, runSteps } from '../src';
import { createMemorySession } from '../src/testing';

const RUNS = Number(process.argv[2] ?? 30);
const WARMUP = 3;
const PAGE = `<!doctype html><title>List</title><ul>${Array.from({ length: 20 }, (_v, i) => `<li><b>item ${i}</b><i>${i}</i></li>`).join('')}</ul>`;

type Scenario = [label: string, once: () => Promise<unknown>];

/**
 * Runs the scenarios round-robin (one run of each per round) so that load from other processes
 * on the machine skews them all alike, then prints mean, median and p90 per scenario.
 */
async function measure(scenarios: Scenario[]): Promise<void> {
  for (let i = 0; i < WARMUP; i++) for (const [, once] of scenarios) await once();
  const times = scenarios.map((): number[] => []);
  for (let i = 0; i < RUNS; i++) {
    for (const [index, [, once]] of scenarios.entries()) {
      const started = performance.now();
      await once();
      times[index]!.push(performance.now() - started);
    }
  }
  for (const [index, [label]] of scenarios.entries()) {
    const sorted = times[index]!.sort((a, b) => a - b);
    const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const p90 = sorted[Math.floor(sorted.length * 0.9)]!;
    console.log(
      `${label.padEnd(44)} mean ${mean.toFixed(0).padStart(4)} ms  median ${median.toFixed(0).padStart(4)} ms  p90 ${p90.toFixed(0).padStart(4)} ms`,
    );
  }
}

async function main(): Promise<void> {
  const server = await startFixtureServer({ '/': PAGE });
  const host = createBrowserHost({ executablePath: resolveChromiumPath({ explicitPath: process.env.CHROMIUM_PATH }) });
  const browser = await host.getBrowser();
  const steps = indexSteps([
    {
      action: 'extract',
      name: 'items',
      selector: 'li',
      multiple: true,
      fields: { name: { selector: 'b' }, n: { selector: 'i' } },
    },
  ]);
  const execute = async (program: Parameters<typeof runExecution>[0]['program'], adBlocking = false) => {
    const outcome = await runExecution({
      browserHost: host,
      targetUrl: server.url('/'),
      capabilities: { adBlocking, locale: 'en-US', timezone: 'UTC' },
      timeoutMs: 30_000,
      session: createMemorySession(),
      program,
    });
    // A failing run (and its screenshot) would time the wrong thing.
    if (outcome.status !== 'completed')
      throw new Error(`run failed: ${outcome.status === 'cancelled' ? 'cancelled' : outcome.error}`);
  };

  const bare = (waitUntil: 'load' | 'domcontentloaded', extract: boolean) => async () => {
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const page = await context.newPage();
    await page.goto(server.url('/'), { waitUntil });
    if (extract) {
      await page
        .locator('li')
        .evaluateAll((els) =>
          els.map((el) => [el.querySelector('b')?.textContent, el.querySelector('i')?.textContent]),
        );
    }
    await context.close();
  };
  await measure([
    ['bare Playwright, goto load', bare('load', false)],
    ['bare Playwright, goto domcontentloaded', bare('domcontentloaded', false)],
    ['runExecution, empty program', () => execute(async () => null)],
    ['runExecution, empty program, adBlocking', () => execute(async () => null, true)],
    ['bare Playwright, 20-item extraction', bare('load', true)],
    ['runExecution + runSteps, 20-item extraction', () => execute((page, s) => runSteps(page, steps, s))],
  ]);
  await host.close();
  await server.close();
}

void main();
