import { z } from 'zod';
import type { ScriptWriter } from './script-writer';
import type { StepPage, StepRunContext } from './step-page';

/** Fields every step accepts, whatever its action. */
const STEP_BASE_FIELDS = {
  index: z.number().int().min(0).optional(),
  timeout: z.number().int().min(1).max(600_000).optional().describe('Step timeout in ms'),
  optional: z.boolean().optional(),
};

/** An action's steps: the base fields, `action`, then the action's own fields; unknown keys refused. */
function stepSchema<A extends string, Fields extends z.ZodRawShape>(action: A, fields: Fields) {
  return z.strictObject({ ...STEP_BASE_FIELDS, action: z.literal(action), ...fields });
}

export type StepActionSchema<A extends string, Fields extends z.ZodRawShape> = ReturnType<typeof stepSchema<A, Fields>>;

/** A stored step: always carries its position. */
export type StoredStep<Schema extends z.ZodType> = z.output<Schema> & { index: number };

/** What the step interpreter and the script generator do with one of an action's steps. */
export interface StepActionBehaviour<S> {
  /**
   * Performs the step, templates already filled, within `run.timeoutMs`. Resolves to the step's
   * output data (`void` for none, recorded as null).
   */
  perform(page: StepPage, step: S, run: StepRunContext): Promise<unknown>;
  /** `click "#buy"`: names the step in logs and errors. Gets the unfilled step (params may be secrets). */
  describe(step: S): string;
  /**
   * The statements inside the step's `step()` callback in the generated script, doing what
   * `perform` does; a `return` gives the step's output.
   */
  toScript(step: S, script: ScriptWriter): string[];
  /**
   * The URL the step opens, as written (templates unfilled), for actions that navigate. The API
   * judges it at trigger time once params fill it (urlTemplateProblems); `perform` judges it again.
   */
  navigatesTo?(step: S): string | undefined;
  /** The key of the run's data that receives the step's output (extract's `name`); none when absent. */
  dataKey?(step: S): string;
  /**
   * For a step that lasts a set time (a sleep): that time in ms. It then bounds the step
   * instead of the step's timeout (the execution's deadline still applies).
   */
  durationMs?(step: S): number | undefined;
}

export interface StepActionDefinition<A extends string, Schema extends z.ZodType> extends StepActionBehaviour<
  StoredStep<Schema>
> {
  readonly action: A;
  /** Validates the action's steps; the API's StepSchema is the union of these. */
  readonly schema: Schema;
}

export type StepActionSpec<A extends string, Fields extends z.ZodRawShape> = {
  action: A;
  /** The action's own fields; `index`, `timeout`, `optional` and `action` come with every step. */
  fields: Fields;
  /** Rules across fields (a superRefine): add an issue for each broken one. */
  check?: (
    step: z.output<StepActionSchema<A, Fields>>,
    ctx: z.RefinementCtx<z.output<StepActionSchema<A, Fields>>>,
  ) => void;
} & StepActionBehaviour<StoredStep<StepActionSchema<A, Fields>>>;

/**
 * Declares a step action in one place: its fields (and cross-field checks), how the interpreter
 * performs it, and the code the script generator writes for it. List it in registry.ts.
 */
export function defineStepAction<A extends string, Fields extends z.ZodRawShape>(
  spec: StepActionSpec<A, Fields>,
): StepActionDefinition<A, StepActionSchema<A, Fields>> {
  const { fields, check, ...behaviour } = spec;
  const schema = stepSchema(spec.action, fields);
  return Object.freeze({ ...behaviour, schema: check ? schema.superRefine(check) : schema });
}
