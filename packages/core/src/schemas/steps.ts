import { z } from 'zod';
import { StepSchema, type Step, type StepInput } from '../steps/registry';

/*
 * The API's step schemas. StepSchema is the union of the step actions' own schemas
 * (steps/registry.ts); each action's fields and semantics live in steps/actions/<name>.ts.
 */
export { StepSchema, type Step, type StepAction, type StepInput } from '../steps/registry';
export { ExtractFieldSchema } from '../steps/actions/extract';

export const PutStepsSchema = z.strictObject({ steps: z.array(StepSchema).max(500) }).superRefine((body, ctx) => {
  body.steps.forEach((step, i) => {
    if (step.index !== undefined && step.index !== i) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'index'], message: `index must be ${i} (its position)` });
    }
  });
});

/** Gives each step its position as index. */
export function indexSteps(steps: readonly StepInput[]): Step[] {
  return steps.map((step, index) => ({ ...step, index }));
}
