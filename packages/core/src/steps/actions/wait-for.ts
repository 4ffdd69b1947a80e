import { z } from 'zod';
import { defineStepAction } from '../define-step-action';
import { SelectorSchema } from '../step-fields';

/** waitFor: `selector` waits until that element is visible; `ms` sleeps. */
export const waitForAction = defineStepAction({
  action: 'waitFor',
  fields: { selector: SelectorSchema.optional(), ms: z.number().int().min(0).max(300_000).optional() },
  check(step, ctx) {
    if ((step.selector === undefined) === (step.ms === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['selector'], message: 'waitFor needs exactly one of selector or ms' });
    }
  },
  async perform(page, step, { timeoutMs }) {
    if (step.selector !== undefined)
      await page.locator(step.selector).first().waitFor({ state: 'visible', timeout: timeoutMs });
    else await page.waitForTimeout(step.ms ?? 0);
  },
  // A sleep is cut only by the execution's deadline, never by the step timeout.
  durationMs: (step) => step.ms,
  describe: (step) => (step.selector !== undefined ? `waitFor "${step.selector}"` : `waitFor ${step.ms ?? 0} ms`),
  toScript: (step, script) =>
    step.selector === undefined
      ? [`await page.waitForTimeout(${script.number(step.ms ?? 0)});`]
      : [`await page.waitForSelector(${script.text(step.selector)}${script.options(["state: 'visible'"])});`],
});
