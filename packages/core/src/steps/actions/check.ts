import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';

/** check: Checks the first element matching `selector`, waiting up to the step timeout for it. */
export const checkAction = defineStepAction({
  action: 'check',
  fields: { selector: SelectorSchema },
  async perform(page, step, { timeoutMs }) {
    await page.locator(step.selector).first().check({ timeout: timeoutMs });
  },
  describe: (step) => `check "${step.selector}"`,
  toScript: (step, script) => [`await page.check(${script.text(step.selector)}${script.options()});`],
});
