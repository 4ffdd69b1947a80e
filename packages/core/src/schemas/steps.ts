import { z } from 'zod';
import { IdentifierSchema } from './common';

/*
 * Recorded steps. An execution opens the bot's targetUrl, then runs these in order.
 * String fields may use {{params.<name>}}, filled from the trigger's params before the step runs.
 *
 * Semantics shared by the step interpreter (packages/runner) and the script generator:
 * - click/hover/check/uncheck/fill/select/press act on the first element matching `selector`
 *   (Playwright selector syntax; CSS by default) and wait for it up to the step timeout.
 * - waitFor: `selector` waits until that element is visible; `ms` sleeps.
 * - scroll: scrolls `selector` into view, or the page to the bottom.
 * - extract: a single value is the first match's trimmed textContent, or its `attribute`
 *   (null when absent); a missing element fails the step. With `multiple: true` the value is an
 *   array with one entry per match (possibly empty): with `fields`, an object per match whose
 *   fields are read the same way relative to the match (null when the field element is missing).
 * - screenshot: captures the page (full page with `fullPage`); its output data names the artifact.
 * - `timeout` (ms) bounds the step; `optional: true` records a failure as `skipped` and goes on.
 */

const Selector = z.string().min(1).max(2000);
const TemplatedText = z.string().max(10_000);

const StepBase = {
  index: z.number().int().min(0).optional(),
  timeout: z.number().int().min(1).max(600_000).optional().describe('Step timeout in ms'),
  optional: z.boolean().optional(),
};

const GotoStep = z.strictObject({ ...StepBase, action: z.literal('goto'), url: z.string().min(1).max(2048) });
const ClickStep = z.strictObject({ ...StepBase, action: z.literal('click'), selector: Selector });
const HoverStep = z.strictObject({ ...StepBase, action: z.literal('hover'), selector: Selector });
const CheckStep = z.strictObject({ ...StepBase, action: z.literal('check'), selector: Selector });
const UncheckStep = z.strictObject({ ...StepBase, action: z.literal('uncheck'), selector: Selector });
const FillStep = z.strictObject({ ...StepBase, action: z.literal('fill'), selector: Selector, value: TemplatedText });
const SelectStep = z.strictObject({ ...StepBase, action: z.literal('select'), selector: Selector, value: TemplatedText });
const PressStep = z.strictObject({
  ...StepBase,
  action: z.literal('press'),
  key: z.string().min(1).max(100),
  selector: Selector.optional(),
});
const WaitForStep = z
  .strictObject({
    ...StepBase,
    action: z.literal('waitFor'),
    selector: Selector.optional(),
    ms: z.number().int().min(0).max(300_000).optional(),
  })
  .refine((s) => (s.selector === undefined) !== (s.ms === undefined), {
    message: 'waitFor needs exactly one of selector or ms',
    path: ['selector'],
  });
const ScrollStep = z.strictObject({ ...StepBase, action: z.literal('scroll'), selector: Selector.optional() });

export const ExtractFieldSchema = z.strictObject({
  selector: Selector,
  attribute: z.string().min(1).max(200).optional(),
});

const ExtractStep = z
  .strictObject({
    ...StepBase,
    action: z.literal('extract'),
    name: IdentifierSchema,
    selector: Selector,
    attribute: z.string().min(1).max(200).optional(),
    fields: z.record(IdentifierSchema, ExtractFieldSchema).optional(),
    multiple: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    if (s.fields && s.multiple !== true) {
      ctx.addIssue({ code: 'custom', path: ['multiple'], message: 'fields require multiple: true' });
    }
    if (s.fields && s.attribute) {
      ctx.addIssue({ code: 'custom', path: ['attribute'], message: 'use attribute inside fields, not beside them' });
    }
    if (s.fields && Object.keys(s.fields).length === 0) {
      ctx.addIssue({ code: 'custom', path: ['fields'], message: 'fields must name at least one field' });
    }
  });
const ScreenshotStep = z.strictObject({ ...StepBase, action: z.literal('screenshot'), fullPage: z.boolean().optional() });

export const StepSchema = z.discriminatedUnion('action', [
  GotoStep,
  ClickStep,
  HoverStep,
  CheckStep,
  UncheckStep,
  FillStep,
  SelectStep,
  PressStep,
  WaitForStep,
  ScrollStep,
  ExtractStep,
  ScreenshotStep,
]);
export type StepInput = z.infer<typeof StepSchema>;
/** A stored step: always carries its position. */
export type Step = StepInput & { index: number };
export type StepAction = Step['action'];

export const PutStepsSchema = z
  .strictObject({ steps: z.array(StepSchema).max(500) })
  .superRefine((body, ctx) => {
    body.steps.forEach((step, i) => {
      if (step.index !== undefined && step.index !== i) {
        ctx.addIssue({ code: 'custom', path: ['steps', i, 'index'], message: `index must be ${i} (its position)` });
      }
    });
  });

/** Gives each step its position as index. */
export function indexSteps(steps: StepInput[]): Step[] {
  return steps.map((step, index) => ({ ...step, index }));
}
