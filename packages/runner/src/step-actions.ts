import type { Step } from '@botfleet/core';
import type { Page } from 'playwright-core';
import { extractValue } from './extract';
import type { RunSession } from './run-session';

/**
 * How pages are considered open, for the target URL and `goto` steps. 'load' is Playwright's
 * default, so a generated script's plain `page.goto(url)` behaves the same as the interpreter,
 * and lists read without waiting (extract multiple) see what the page's scripts rendered by
 * then. On loopback it costs no more than 'domcontentloaded'; on real pages ad blocking removes
 * most of what 'load' would wait for.
 */
export const NAVIGATION_WAIT_UNTIL = 'load' as const;

/**
 * Performs one step whose templates are already filled, within `timeoutMs`. Returns the step's
 * output data: the value for `extract`, `{ artifactId }` for `screenshot`, null otherwise.
 */
export async function performStep(page: Page, step: Step, timeoutMs: number, session: RunSession): Promise<unknown> {
  const timeout = { timeout: timeoutMs };
  switch (step.action) {
    case 'goto':
      // Relative URLs resolve against the current page, as a link would.
      await page.goto(new URL(step.url, page.url()).href, { ...timeout, waitUntil: NAVIGATION_WAIT_UNTIL });
      return null;
    case 'click':
      await page.locator(step.selector).first().click(timeout);
      return null;
    case 'hover':
      await page.locator(step.selector).first().hover(timeout);
      return null;
    case 'check':
      await page.locator(step.selector).first().check(timeout);
      return null;
    case 'uncheck':
      await page.locator(step.selector).first().uncheck(timeout);
      return null;
    case 'fill':
      await page.locator(step.selector).first().fill(step.value, timeout);
      return null;
    case 'select':
      // Playwright matches the option by value or by label.
      await page.locator(step.selector).first().selectOption(step.value, timeout);
      return null;
    case 'press':
      if (step.selector) await page.locator(step.selector).first().press(step.key, timeout);
      else await page.keyboard.press(step.key);
      return null;
    case 'waitFor':
      if (step.selector !== undefined) await page.locator(step.selector).first().waitFor({ state: 'visible', ...timeout });
      else await page.waitForTimeout(step.ms ?? 0);
      return null;
    case 'scroll':
      if (step.selector) await page.locator(step.selector).first().scrollIntoViewIfNeeded(timeout);
      else await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      return null;
    case 'extract':
      return extractValue(page, step, timeoutMs);
    case 'screenshot': {
      const png = await page.screenshot({ type: 'png', fullPage: step.fullPage ?? false, ...timeout });
      return { artifactId: await session.saveArtifact('screenshot', 'image/png', png) };
    }
    default:
      return assertNever(step);
  }
}

function assertNever(step: never): never {
  throw new Error(`Unknown step action ${(step as { action: string }).action}`);
}

/** `click "#buy"`, `goto "https://..."`, `waitFor 500 ms`: names a step in logs and errors. */
export function describeStep(step: Step): string {
  switch (step.action) {
    case 'goto':
      return `goto "${step.url}"`;
    case 'press':
      return step.selector ? `press "${step.key}" on "${step.selector}"` : `press "${step.key}"`;
    case 'waitFor':
      return step.selector !== undefined ? `waitFor "${step.selector}"` : `waitFor ${step.ms ?? 0} ms`;
    case 'scroll':
      return step.selector ? `scroll "${step.selector}"` : 'scroll to bottom';
    case 'extract':
      return `extract ${step.name} "${step.selector}"`;
    case 'screenshot':
      return step.fullPage ? 'screenshot full page' : 'screenshot';
    default:
      return `${step.action} "${step.selector}"`;
  }
}
