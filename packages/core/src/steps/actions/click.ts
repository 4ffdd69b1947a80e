import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';

/** click: Clicks the first element matching `selector`, waiting up to the step timeout for it. */
export const clickAction = defineStepAction({
  action: 'click',
  fields: { selector: SelectorSchema },
  async perform(page, step, { timeoutMs }) {
    await page.locator(step.selector).first().click({ timeout: timeoutMs });
  },
  describe: (step) => `click "${step.selector}"`,
  toScript: (step, script) => [`await page.click(${script.text(step.selector)}${script.options()});`],
});
