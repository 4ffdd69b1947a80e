import { defineStepAction } from '../define-step-action';
import { ELEMENT_FIELDS, isPlainSelector } from '../element-selector';
import { describeElement, locatedOutput, locateElement, probe, scriptTarget, timeLeft } from '../locate-element';
import { NavigationWaitSchema, navigationWaitScript, withNavigationWait } from '../navigation-wait';
import { PROBE_ELEMENTS_HELPER } from '../page-functions';
import { TemplatedTextSchema } from '../step-fields';

/**
 * fill: replaces the value of the first input matching `selector` with `value`. With selector
 * alternatives (as a recording's `change` step has), the element is looked at when the step runs:
 * a `<select>` gets the option `value` picked (by value or label) instead, and the output's
 * `selector` names the alternative that matched.
 */
export const fillAction = defineStepAction({
  action: 'fill',
  fields: { ...ELEMENT_FIELDS, value: TemplatedTextSchema, waitForNavigation: NavigationWaitSchema.optional() },
  async perform(page, step, { timeoutMs }) {
    const startedAt = Date.now();
    const target = await locateElement(page, step, timeoutMs);
    const element = page.locator(target.selector).first();
    const isSelect =
      !isPlainSelector(step.selector, step.frame) && (await probe(page, target.selector, null)).tag === 'SELECT';
    const options = { timeout: timeLeft(startedAt, timeoutMs) };
    await withNavigationWait(page, step.waitForNavigation, options.timeout, async () => {
      if (isSelect) await element.selectOption(step.value, options);
      else await element.fill(step.value, options);
    });
    return locatedOutput(target);
  },
  describe: (step) => `fill ${describeElement(step)}`,
  toScript(step, script) {
    const target = scriptTarget(step, script);
    const fill = `page.fill(${target.selector}, ${script.text(step.value)}${script.options()})`;
    if (isPlainSelector(step.selector, step.frame)) return navigationWaitScript(step, fill, script);
    const select = `page.selectOption(target.selector, ${script.text(step.value)}${script.options()})`;
    return [
      ...target.setup,
      `const isSelect = (await page.$$eval(target.selector, ${script.use(PROBE_ELEMENTS_HELPER)}, null)).tag === 'SELECT';`,
      ...navigationWaitScript(step, `(isSelect ? ${select} : ${fill})`, script),
      ...target.output,
    ];
  },
});
