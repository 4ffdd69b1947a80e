import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';

/** scroll: scrolls `selector` into view, or the page to the bottom. */
export const scrollAction = defineStepAction({
  action: 'scroll',
  fields: { selector: SelectorSchema.optional() },
  async perform(page, step, { timeoutMs }) {
    if (step.selector) await page.locator(step.selector).first().scrollIntoViewIfNeeded({ timeout: timeoutMs });
    else await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  },
  describe: (step) => (step.selector ? `scroll "${step.selector}"` : 'scroll to bottom'),
  toScript: (step, script) =>
    step.selector === undefined
      ? ['await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));']
      : [`await page.scrollIntoViewIfNeeded(${script.text(step.selector)}${script.options()});`],
});
