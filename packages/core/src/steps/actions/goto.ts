import { NavigableUrlSchema, navigableUrl } from '../../navigable-url';
import { defineStepAction } from '../define-step-action';

/**
 * How pages are considered open, for the target URL and `goto` steps. 'load' is Playwright's
 * default, so a generated script's plain `page.goto(url)` behaves the same as the interpreter,
 * and lists read without waiting (extract multiple) see what the page's scripts rendered by
 * then. On loopback it costs no more than 'domcontentloaded'; on real pages ad blocking removes
 * most of what 'load' would wait for.
 */
export const NAVIGATION_WAIT_UNTIL = 'load' as const;

/**
 * goto: opens `url`; a relative URL resolves against the current page, as a link would. Only
 * http(s) and about:blank: the schema refuses other schemes when the step is written, `perform`
 * (and the sandbox's page.goto, which the generated script calls) when a filled template or a
 * stored step names one (`url_not_allowed`).
 */
export const gotoAction = defineStepAction({
  action: 'goto',
  fields: { url: NavigableUrlSchema },
  async perform(page, step, { timeoutMs }) {
    const url = navigableUrl(step.url, { base: page.url(), allowAboutBlank: true });
    await page.goto(url, { timeout: timeoutMs, waitUntil: NAVIGATION_WAIT_UNTIL });
  },
  describe: (step) => `goto "${step.url}"`,
  navigatesTo: (step) => step.url,
  toScript: (step, script) => [`await page.goto(${script.text(step.url)}${script.options()});`],
});
