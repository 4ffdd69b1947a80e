import type { Step, StepInput } from '../steps/registry';

/*
 * StepSchema is the union of the step actions' own schemas (steps/registry.ts); each action's
 * fields and semantics live in steps/actions/<name>.ts. The API's request shapes are in its contract.
 */
export { StepSchema, type Step, type StepAction, type StepInput } from '../steps/registry';
export { ExtractFieldSchema } from '../steps/actions/extract';

/** Gives each step its position as index. */
export function indexSteps(steps: readonly StepInput[]): Step[] {
  return steps.map((step, index) => ({ ...step, index }));
}
