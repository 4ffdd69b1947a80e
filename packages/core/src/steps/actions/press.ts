import { z } from 'zod';
import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';

/** press: presses `key` on the first element matching `selector`, or on the page without one. */
export const pressAction = defineStepAction({
  action: 'press',
  fields: { key: z.string().min(1).max(100), selector: SelectorSchema.optional() },
  async perform(page, step, { timeoutMs }) {
    if (step.selector) await page.locator(step.selector).first().press(step.key, { timeout: timeoutMs });
    else await page.keyboard.press(step.key);
  },
  describe: (step) => (step.selector ? `press "${step.key}" on "${step.selector}"` : `press "${step.key}"`),
  toScript: (step, script) =>
    step.selector === undefined
      ? [`await page.keyboard.press(${script.text(step.key)});`]
      : [`await page.press(${script.text(step.selector)}, ${script.text(step.key)}${script.options()});`],
});
