import { z } from 'zod';
import { defineStepAction } from '../define-step-action';
import { ELEMENT_FIELDS, isPlainSelector } from '../element-selector';
import { describeElement, locatedOutput, locateElement, probe, scriptTarget, timeLeft } from '../locate-element';
import { NavigationWaitSchema, navigationWaitScript, withNavigationWait } from '../navigation-wait';
import { prepareKeystrokesInPage, PREPARE_KEYSTROKES_HELPER, PROBE_ELEMENTS_HELPER } from '../page-functions';
import { CredentialValueSchema } from '../../sessions/credential';
import { TemplatedTextSchema } from '../step-fields';
import type { StepLocator, StepPage } from '../step-page';

/**
 * fill: replaces the value of the first input matching `selector` with `value`. With selector
 * alternatives (as a recording's `change` step has), the element is looked at when the step runs:
 * a `<select>` gets the option `value` picked (by value or label) instead, and the output's
 * `selector` names the alternative that matched.
 *
 * With `keystrokes` (what an imported Recorder `change` step gets), the value goes in as Chrome's
 * own replay puts it: typed key by key into text inputs, textareas and editable elements (only
 * what follows a prefix already there; `\n` is Enter), so pages that listen to key events
 * (suggestion lists, masks) see them; set at once with input and change events when it is 100
 * characters or more or the input is not typed into (date, colour, range...); a `<select>` option
 * picked by its value only; a checkbox or radio clicked when its state differs.
 */
export const fillAction = defineStepAction({
  action: 'fill',
  fields: {
    ...ELEMENT_FIELDS,
    value: z
      .union([TemplatedTextSchema, CredentialValueSchema])
      .describe('The text to put in, or a credential field to take it from (never stored in the step)'),
    keystrokes: z
      .boolean()
      .optional()
      .describe("Put the value in as Chrome's Recorder replays a change: typed key by key (see docs/recordings.md)"),
    waitForNavigation: NavigationWaitSchema.optional(),
  },
  async perform(page, step, run) {
    const { timeoutMs } = run;
    const startedAt = Date.now();
    const target = await locateElement(page, step, timeoutMs);
    const element = page.locator(target.selector).first();
    const isSelect =
      !step.keystrokes &&
      !isPlainSelector(step.selector, step.frame) &&
      (await probe(page, target.selector, null)).tag === 'SELECT';
    // Resolved only now, after the element is found: a TOTP code is current for this moment.
    const value = typeof step.value === 'string' ? step.value : await run.credentialValue(step.value, target.selector);
    const options = { timeout: timeLeft(startedAt, timeoutMs) };
    await withNavigationWait(
      page,
      step.waitForNavigation,
      options.timeout,
      async () => {
        if (step.keystrokes) await putInWithKeystrokes(page, element, value, options);
        else if (isSelect) await element.selectOption(value, options);
        else await element.fill(value, options);
      },
      step.frame,
    );
    return locatedOutput(target);
  },
  describe: (step) => `fill ${describeElement(step)}`,
  toScript(step, script) {
    const target = scriptTarget(step, script);
    const value = typeof step.value === 'string' ? script.text(step.value) : script.credential(step.value);
    if (step.keystrokes) {
      const prepared = `await page.$$eval(${target.selector}, ${script.use(PREPARE_KEYSTROKES_HELPER)}, ${value})`;
      const act = [
        `(async () => {`,
        `  await page.waitForSelector(${target.selector}${script.options(["state: 'visible'"])});`,
        `  const prepared = ${prepared};`,
        `  if (prepared.how === 'unknown') throw new Error(${JSON.stringify(CANNOT_FILL)});`,
        `  if (prepared.how === 'type') await page.keyboard.type(prepared.text);`,
        `  if (prepared.how === 'click') await page.click(${target.selector}${script.options()});`,
        `})()`,
      ].join('\n');
      return [...target.setup, ...navigationWaitScript(step, act, script), ...target.output];
    }
    const fill = `page.fill(${target.selector}, ${value}${script.options()})`;
    if (isPlainSelector(step.selector, step.frame)) return navigationWaitScript(step, fill, script);
    const select = `page.selectOption(target.selector, ${value}${script.options()})`;
    return [
      ...target.setup,
      `const isSelect = (await page.$$eval(target.selector, ${script.use(PROBE_ELEMENTS_HELPER)}, null)).tag === 'SELECT';`,
      ...navigationWaitScript(step, `(isSelect ? ${select} : ${fill})`, script),
      ...target.output,
    ];
  },
});

const CANNOT_FILL = 'Element cannot be filled out: it is not an input, textarea, select or editable element';

/** The interpreter's side of `keystrokes`: the page readies the element, then the rest is typed or clicked. */
async function putInWithKeystrokes(page: StepPage, element: StepLocator, value: string, options: { timeout: number }) {
  await element.waitFor({ state: 'visible', ...options });
  const prepared = await element.evaluateAll(prepareKeystrokesInPage, value);
  if (prepared.how === 'unknown') throw new Error(CANNOT_FILL);
  if (prepared.how === 'type') await page.keyboard.type(prepared.text);
  if (prepared.how === 'click') await element.click(options);
}
