import { defineStepAction } from '../define-step-action';
import { ELEMENT_FIELDS } from '../element-selector';
import { describeElement, locatedOutput, locateElement, scriptTarget, timeLeft } from '../locate-element';

/**
 * check: Checks the first element matching `selector` (alternatives: the first that matches), waiting
 * up to the step timeout for it. With alternatives, the output's `selector` names the one that matched.
 */
export const checkAction = defineStepAction({
  action: 'check',
  fields: ELEMENT_FIELDS,
  async perform(page, step, { timeoutMs }) {
    const startedAt = Date.now();
    const target = await locateElement(page, step, timeoutMs);
    await page
      .locator(target.selector)
      .first()
      .check({ timeout: timeLeft(startedAt, timeoutMs) });
    return locatedOutput(target);
  },
  describe: (step) => `check ${describeElement(step)}`,
  toScript(step, script) {
    const target = scriptTarget(step, script);
    return [...target.setup, `await page.check(${target.selector}${script.options()});`, ...target.output];
  },
});
