import { createRunner, PuppeteerRunnerExtension, type UserFlow } from '@puppeteer/replay';
import puppeteer, { type Browser } from 'puppeteer-core';
import { BASE_CHROMIUM_ARGS } from '../../browser-host';
import { SETTLE_PAGE_EXPRESSION } from './parity-site';

/*
 * The reference: Chrome's own replay library (@puppeteer/replay, the runner behind the Recorder
 * panel's "Replay" button) on puppeteer-core, driving the same Chromium binary botfleet drives,
 * with the same flags.
 */

export function launchReferenceBrowser(executablePath: string, extraArgs: readonly string[]): Promise<Browser> {
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: [...BASE_CHROMIUM_ARGS, ...extraArgs],
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

export type ReplayOutcome = { ok: true } | { ok: false; message: string };

/** Evaluates a JavaScript expression in the replayed page's main frame. */
export type EvaluateInPage = (expression: string) => Promise<unknown>;

/**
 * Replays the recording in a fresh browser context, as the Recorder panel does in a fresh page.
 * `whenDone` runs once the page has settled, before the context closes (closing a page blurs
 * its inputs, which pages see).
 */
export async function replayWithPuppeteer(
  browser: Browser,
  recording: object,
  timeoutMs: number,
  whenDone: (evaluate: EvaluateInPage) => Promise<void>,
): Promise<ReplayOutcome> {
  const context = await browser.createBrowserContext();
  let outcome: ReplayOutcome;
  const page = await context.newPage();
  try {
    const extension = new PuppeteerRunnerExtension(browser, page, { timeout: timeoutMs });
    const runner = await createRunner(recording as UserFlow, extension);
    outcome = (await runner.run()) ? { ok: true } : { ok: false, message: 'the replay stopped before its last step' };
  } catch (error) {
    outcome = { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  await page.evaluate(SETTLE_PAGE_EXPRESSION).catch(() => undefined);
  await whenDone((expression) => page.evaluate(expression));
  await context.close();
  return outcome;
}
