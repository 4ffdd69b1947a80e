import { defineStepAction } from '../define-step-action';
import { SelectorSchema, TemplatedTextSchema } from '../step-fields';

/** select: picks the option `value` in the first select matching `selector`. */
export const selectAction = defineStepAction({
  action: 'select',
  fields: { selector: SelectorSchema, value: TemplatedTextSchema },
  async perform(page, step, { timeoutMs }) {
    // Playwright matches the option by value or by label.
    await page.locator(step.selector).first().selectOption(step.value, { timeout: timeoutMs });
  },
  describe: (step) => `select "${step.selector}"`,
  toScript: (step, script) => [
    `await page.selectOption(${script.text(step.selector)}, ${script.text(step.value)}${script.options()});`,
  ],
});
