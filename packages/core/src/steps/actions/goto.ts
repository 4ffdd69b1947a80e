import { z } from 'zod';
import { defineStepAction } from '../define-step-action';

/**
 * How pages are considered open, for the target URL and `goto` steps. 'load' is Playwright's
 * default, so a generated script's plain `page.goto(url)` behaves the same as the interpreter,
 * and lists read without waiting (extract multiple) see what the page's scripts rendered by
 * then. On loopback it costs no more than 'domcontentloaded'; on real pages ad blocking removes
 * most of what 'load' would wait for.
 */
export const NAVIGATION_WAIT_UNTIL = 'load' as const;

/** goto: opens `url`; a relative URL resolves against the current page, as a link would. */
export const gotoAction = defineStepAction({
  action: 'goto',
  fields: { url: z.string().min(1).max(2048) },
  async perform(page, step, { timeoutMs }) {
    await page.goto(new URL(step.url, page.url()).href, { timeout: timeoutMs, waitUntil: NAVIGATION_WAIT_UNTIL });
  },
  describe: (step) => `goto "${step.url}"`,
  toScript: (step, script) => [`await page.goto(${script.text(step.url)}${script.options()});`],
});
