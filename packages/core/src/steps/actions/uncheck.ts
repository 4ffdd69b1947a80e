import { defineStepAction } from '../define-step-action';
import { ELEMENT_FIELDS } from '../element-selector';
import { describeElement, locatedOutput, locateElement, scriptTarget, timeLeft } from '../locate-element';

/**
 * uncheck: Unchecks the first element matching `selector` (alternatives: the first that matches), waiting
 * up to the step timeout for it. With alternatives, the output's `selector` names the one that matched.
 */
export const uncheckAction = defineStepAction({
  action: 'uncheck',
  fields: ELEMENT_FIELDS,
  async perform(page, step, { timeoutMs }) {
    const startedAt = Date.now();
    const target = await locateElement(page, step, timeoutMs);
    await page
      .locator(target.selector)
      .first()
      .uncheck({ timeout: timeLeft(startedAt, timeoutMs) });
    return locatedOutput(target);
  },
  describe: (step) => `uncheck ${describeElement(step)}`,
  toScript(step, script) {
    const target = scriptTarget(step, script);
    return [...target.setup, `await page.uncheck(${target.selector}${script.options()});`, ...target.output];
  },
});
