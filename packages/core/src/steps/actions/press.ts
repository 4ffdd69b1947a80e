import { z } from 'zod';
import { defineStepAction } from '../define-step-action';
import { NavigationWaitSchema, navigationWaitScript, withNavigationWait } from '../navigation-wait';
import { SelectorSchema } from '../step-fields';

/** press: presses `key` (or a chord, `Shift+A`) on the first element matching `selector`, or on the page without one. */
export const pressAction = defineStepAction({
  action: 'press',
  fields: {
    key: z.string().min(1).max(100),
    selector: SelectorSchema.optional(),
    waitForNavigation: NavigationWaitSchema.optional(),
  },
  async perform(page, step, { timeoutMs }) {
    const { selector } = step;
    await withNavigationWait(page, step.waitForNavigation, timeoutMs, () =>
      selector ? page.locator(selector).first().press(step.key, { timeout: timeoutMs }) : page.keyboard.press(step.key),
    );
  },
  describe: (step) => (step.selector ? `press "${step.key}" on "${step.selector}"` : `press "${step.key}"`),
  toScript: (step, script) =>
    navigationWaitScript(
      step,
      step.selector === undefined
        ? `page.keyboard.press(${script.text(step.key)})`
        : `page.press(${script.text(step.selector)}, ${script.text(step.key)}${script.options()})`,
      script,
    ),
});
