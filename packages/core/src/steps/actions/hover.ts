import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';

/** hover: Hovers over the first element matching `selector`, waiting up to the step timeout for it. */
export const hoverAction = defineStepAction({
  action: 'hover',
  fields: { selector: SelectorSchema },
  async perform(page, step, { timeoutMs }) {
    await page.locator(step.selector).first().hover({ timeout: timeoutMs });
  },
  describe: (step) => `hover "${step.selector}"`,
  toScript: (step, script) => [`await page.hover(${script.text(step.selector)}${script.options()});`],
});
