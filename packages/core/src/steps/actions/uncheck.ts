import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';

/** uncheck: Unchecks the first element matching `selector`, waiting up to the step timeout for it. */
export const uncheckAction = defineStepAction({
  action: 'uncheck',
  fields: { selector: SelectorSchema },
  async perform(page, step, { timeoutMs }) {
    await page.locator(step.selector).first().uncheck({ timeout: timeoutMs });
  },
  describe: (step) => `uncheck "${step.selector}"`,
  toScript: (step, script) => [`await page.uncheck(${script.text(step.selector)}${script.options()});`],
});
