import { z } from 'zod';
import { defineStepAction } from '../define-step-action';
import { ELEMENT_FIELDS } from '../element-selector';
import { describeElement, locatedOutput, locateElement, scriptTarget, timeLeft } from '../locate-element';
import { NavigationWaitSchema, navigationWaitScript, withNavigationWait } from '../navigation-wait';

/**
 * click: clicks the first element matching `selector` (alternatives: the first that matches),
 * waiting up to the step timeout for it; `button` and `clickCount` (2 for a double click) as a
 * mouse would. With alternatives, the output's `selector` names the one that matched.
 */
export const clickAction = defineStepAction({
  action: 'click',
  fields: {
    ...ELEMENT_FIELDS,
    button: z.enum(['left', 'right', 'middle']).optional(),
    clickCount: z.number().int().min(1).max(3).optional(),
    waitForNavigation: NavigationWaitSchema.optional(),
  },
  async perform(page, step, { timeoutMs }) {
    const startedAt = Date.now();
    const target = await locateElement(page, step, timeoutMs);
    const options = {
      timeout: timeLeft(startedAt, timeoutMs),
      ...(step.button ? { button: step.button } : {}),
      ...(step.clickCount ? { clickCount: step.clickCount } : {}),
    };
    await withNavigationWait(
      page,
      step.waitForNavigation,
      timeLeft(startedAt, timeoutMs),
      () => page.locator(target.selector).first().click(options),
      step.frame,
    );
    return locatedOutput(target);
  },
  describe: (step) => `${step.clickCount === 2 ? 'doubleClick' : 'click'} ${describeElement(step)}`,
  toScript(step, script) {
    const target = scriptTarget(step, script);
    const extra = [
      ...(step.button ? [`button: ${JSON.stringify(step.button)}`] : []),
      ...(step.clickCount ? [`clickCount: ${script.number(step.clickCount)}`] : []),
    ];
    const call = `page.click(${target.selector}${script.options(extra)})`;
    return [...target.setup, ...navigationWaitScript(step, call, script), ...target.output];
  },
});
