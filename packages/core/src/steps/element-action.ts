import { defineStepAction } from './define-step-action';
import { ELEMENT_FIELDS } from './element-selector';
import { describeElement, locatedOutput, locateElement, scriptTarget, timeLeft } from './locate-element';

/** Actions that do one thing to one element, named as the Playwright locator method that does it. */
type ElementMethod = 'check' | 'uncheck' | 'hover';

/**
 * An action on the first element matching `selector` (alternatives: the first that matches),
 * waiting up to the step timeout for it. With alternatives, the output's `selector` names the one
 * that matched. The interpreter and the generated script call the same Playwright method.
 */
export function defineElementAction<A extends ElementMethod>(action: A) {
  return defineStepAction({
    action,
    fields: ELEMENT_FIELDS,
    async perform(page, step, { timeoutMs }) {
      const startedAt = Date.now();
      const target = await locateElement(page, step, timeoutMs);
      const element = page.locator(target.selector).first();
      await element[action]({ timeout: timeLeft(startedAt, timeoutMs) });
      return locatedOutput(target);
    },
    describe: (step) => `${action} ${describeElement(step)}`,
    toScript(step, script) {
      const target = scriptTarget(step, script);
      return [...target.setup, `await page.${action}(${target.selector}${script.options()});`, ...target.output];
    },
  });
}
