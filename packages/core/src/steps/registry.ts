import { z } from 'zod';
import { checkAction } from './actions/check';
import { clickAction } from './actions/click';
import { extractAction } from './actions/extract';
import { fillAction } from './actions/fill';
import { gotoAction } from './actions/goto';
import { hoverAction } from './actions/hover';
import { pressAction } from './actions/press';
import { screenshotAction } from './actions/screenshot';
import { scrollAction } from './actions/scroll';
import { selectAction } from './actions/select';
import { setViewportAction } from './actions/set-viewport';
import { uncheckAction } from './actions/uncheck';
import { waitForAction } from './actions/wait-for';
import type { StepActionBehaviour } from './define-step-action';

/*
 * The step actions. Each lives in one file (actions/<name>.ts, made with defineStepAction) that
 * holds everything about it: its fields and checks, how the interpreter performs it, and the
 * code the script generator writes for it. The API's StepSchema, the interpreter and the
 * generator all come from this list, so a new action is its file plus one line here. (Only an
 * action needing a page method no action used before also adds it to StepPage, and, if its
 * generated code calls it, to the sandbox's page facade.)
 *
 * Why in core and not in the runner: steps are domain data. The API validates and documents
 * them, the database stores them, and pure packages to come (recordings) convert them, none of
 * which should depend on the runner and Playwright. Schema and codegen are pure anyway; `perform`
 * is written against StepPage, the slice of a Playwright page the actions use, declared in core
 * (step-page.ts). The runner passes its real Page, so the compiler checks that it fits, and core
 * imports nothing from Playwright, not even its types.
 */
export const STEP_ACTIONS = [
  gotoAction,
  clickAction,
  hoverAction,
  checkAction,
  uncheckAction,
  fillAction,
  selectAction,
  pressAction,
  waitForAction,
  scrollAction,
  extractAction,
  screenshotAction,
  setViewportAction,
] as const;

type SchemasOf<Actions extends readonly { schema: z.ZodType }[]> = {
  readonly [K in keyof Actions]: Actions[K]['schema'];
};

// map() keeps the order; the cast only tells TypeScript it is the same tuple of schemas.
const ACTION_SCHEMAS = STEP_ACTIONS.map((action) => action.schema) as unknown as SchemasOf<typeof STEP_ACTIONS>;

/**
 * Recorded steps. An execution opens the bot's targetUrl, then runs these in order. String fields
 * may use {{params.<name>}}, filled from the trigger's params before the step runs. An action
 * with a `selector` acts on the first element matching it (Playwright selector syntax; CSS by
 * default; or alternatives tried in order, with Chrome Recorder prefixes: steps/element-selector.ts)
 * and waits for it up to the step timeout. `timeout` (ms) bounds the step; `optional:
 * true` records a failure as `skipped` and goes on. What each action does is in its file.
 */
export const StepSchema = z.discriminatedUnion('action', ACTION_SCHEMAS);
export type StepInput = z.infer<typeof StepSchema>;
/** A stored step: always carries its position. */
export type Step = StepInput & { index: number };
export type StepAction = Step['action'];

/** Any registered action, as the interpreter and the generator call it: with any step. */
export type AnyStepActionDefinition = StepActionBehaviour<Step> & { readonly action: StepAction };

const BY_ACTION: ReadonlyMap<string, AnyStepActionDefinition> = new Map(
  STEP_ACTIONS.map((action) => [action.action, action]),
);

/**
 * The definition of an action, or undefined for one this version does not know (a step stored
 * by a newer version, read after a rollback).
 */
export function findStepAction(action: string): AnyStepActionDefinition | undefined {
  return BY_ACTION.get(action);
}

/** The definition of the step's action; throws for an unknown action. */
export function stepActionOf(step: Step): AnyStepActionDefinition {
  const definition = findStepAction(step.action);
  if (!definition) throw new Error(`Unknown step action ${(step as { action: string }).action}`);
  return definition;
}

/** `click "#buy"`, `goto "https://..."`, `waitFor 500 ms`: names a step in logs and errors. */
export function describeStep(step: Step): string {
  // An unknown action still gets a name, so its step fails like any other when performed.
  return findStepAction(step.action)?.describe(step) ?? step.action;
}

/**
 * The URLs these stored steps open, as written (placeholders unfilled), from each action's
 * `navigatesTo`: what the API judges once a trigger's params fill them (urlTemplateProblems).
 */
export function stepUrlTemplates(steps: readonly unknown[]): string[] {
  return steps.flatMap((raw) => {
    if (raw === null || typeof raw !== 'object') return [];
    const action = findStepAction(String((raw as { action?: unknown }).action));
    const url = action?.navigatesTo?.(raw as Step);
    return typeof url === 'string' ? [url] : [];
  });
}
