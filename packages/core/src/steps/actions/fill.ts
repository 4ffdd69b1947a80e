import { defineStepAction } from '../define-step-action';
import { SelectorSchema, TemplatedTextSchema } from '../step-fields';

/** fill: replaces the value of the first input matching `selector` with `value`. */
export const fillAction = defineStepAction({
  action: 'fill',
  fields: { selector: SelectorSchema, value: TemplatedTextSchema },
  async perform(page, step, { timeoutMs }) {
    await page.locator(step.selector).first().fill(step.value, { timeout: timeoutMs });
  },
  describe: (step) => `fill "${step.selector}"`,
  toScript: (step, script) => [
    `await page.fill(${script.text(step.selector)}, ${script.text(step.value)}${script.options()});`,
  ],
});
