import { defineStepAction } from '../define-step-action';
import { ELEMENT_FIELDS } from '../element-selector';
import { describeElement, locatedOutput, locateElement, scriptTarget, timeLeft } from '../locate-element';
import { TemplatedTextSchema } from '../step-fields';

/** select: picks the option `value` in the first select matching `selector` (alternatives: the first that matches). */
export const selectAction = defineStepAction({
  action: 'select',
  fields: { ...ELEMENT_FIELDS, value: TemplatedTextSchema },
  async perform(page, step, { timeoutMs }) {
    const startedAt = Date.now();
    const target = await locateElement(page, step, timeoutMs);
    // Playwright matches the option by value or by label.
    await page
      .locator(target.selector)
      .first()
      .selectOption(step.value, { timeout: timeLeft(startedAt, timeoutMs) });
    return locatedOutput(target);
  },
  describe: (step) => `select ${describeElement(step)}`,
  toScript(step, script) {
    const target = scriptTarget(step, script);
    return [
      ...target.setup,
      `await page.selectOption(${target.selector}, ${script.text(step.value)}${script.options()});`,
      ...target.output,
    ];
  },
});
