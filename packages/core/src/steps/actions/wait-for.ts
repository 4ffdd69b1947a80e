import { z } from 'zod';
import { defineStepAction } from '../define-step-action';
import { ElementSelectorSchema, FramePathSchema, framePrefix } from '../element-selector';
import {
  describeElement,
  LOCATE_DEFAULT_TIMEOUT_MS,
  LOCATE_ELEMENT_HELPER,
  LOCATE_POLL_MS,
  locatedOutput,
  locateElement,
  scriptTarget,
  selectorLiteral,
  waitForCount,
  type CountOperator,
  type CountWanted,
} from '../locate-element';
import { EVALUATE_EXPRESSION_HELPER, expressionIsTruthyInPage, type ElementFilters } from '../page-functions';
import type { StepPage } from '../step-page';

/** How deep a `properties` value may nest: enough for any DOM property, and no recursion to exhaust. */
const MAX_PROPERTIES_DEPTH = 10;

function nestsWithin(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth === 0) return false;
  return Object.values(value).every((inner) => nestsWithin(inner, depth - 1));
}

const PropertiesSchema = z
  .record(z.string(), z.unknown())
  .refine((properties) => nestsWithin(properties, MAX_PROPERTIES_DEPTH), {
    message: `must not nest deeper than ${MAX_PROPERTIES_DEPTH} levels`,
  })
  .describe('Property values the elements must have (an object value matches as a subset)');

const COUNT_FIELDS = ['count', 'operator', 'visible', 'properties', 'attributes'] as const;

/**
 * waitFor: `selector` waits until that element is visible; `ms` sleeps; `expression` waits until
 * that JavaScript expression (evaluated in the page, or in `frame`) is truthy. With `count`,
 * `operator`, `visible`, `properties` or `attributes`, or with selector alternatives, it is the
 * Recorder's waitForElement as Chrome's own replay runs it: it waits until the elements of the
 * first alternative that matches any compare with `count` (default 1) by `operator` (default
 * `==`) and all carry those attributes and property values; `visible: false` inverts it (waits
 * until that no longer holds). The output's `selector` names the alternative that decided.
 */
export const waitForAction = defineStepAction({
  action: 'waitFor',
  fields: {
    selector: ElementSelectorSchema.optional(),
    ms: z.number().int().min(0).max(300_000).optional(),
    expression: z.string().min(1).max(10_000).optional(),
    frame: FramePathSchema.optional(),
    count: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .optional()
      .describe('How many elements the first alternative that matches any must match (default 1)'),
    operator: z
      .enum(['>=', '==', '<='])
      .optional()
      .describe('How the number of matches compares with count (default ==)'),
    visible: z
      .boolean()
      .optional()
      .describe('false inverts the wait: it ends once the count, attributes and properties no longer hold'),
    properties: PropertiesSchema.optional(),
    attributes: z.record(z.string(), z.string()).optional(),
  },
  check(step, ctx) {
    const given = [step.selector, step.ms, step.expression].filter((value) => value !== undefined).length;
    if (given !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['selector'],
        message: 'waitFor needs exactly one of selector, ms or expression',
      });
    }
    for (const field of COUNT_FIELDS) {
      if (step[field] !== undefined && step.selector === undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} needs a selector` });
      }
    }
  },
  async perform(page, step, { timeoutMs }) {
    if (step.expression !== undefined) return waitForExpression(page, step.expression, step.frame, timeoutMs);
    if (step.selector === undefined) return page.waitForTimeout(step.ms ?? 0);
    const element = { ...step, selector: step.selector };
    const wanted = countWanted(step);
    if (wanted !== null) return locatedOutput(await waitForCount(page, element, wanted, timeoutMs));
    const target = await locateElement(page, element, timeoutMs);
    // A single selector: locateElement only translated it, so the whole timeout is left.
    await page.locator(target.selector).first().waitFor({ state: 'visible', timeout: timeoutMs });
    return undefined;
  },
  // A sleep is cut only by the execution's deadline, never by the step timeout.
  durationMs: (step) => step.ms,
  describe(step) {
    if (step.expression !== undefined)
      return `waitFor expression${step.frame ? ` in frame ${step.frame.join('.')}` : ''}`;
    if (step.selector === undefined) return `waitFor ${step.ms ?? 0} ms`;
    const wanted = countWanted(step);
    const count = wanted === null ? '' : ` ${wanted.operator} ${wanted.count}`;
    return `waitFor ${describeElement({ ...step, selector: step.selector })}${count}`;
  },
  toScript(step, script) {
    const timeout = script.number(step.timeout ?? LOCATE_DEFAULT_TIMEOUT_MS);
    if (step.expression !== undefined) {
      const root = JSON.stringify(`${framePrefix(step.frame)}:root`);
      return [
        `const deadline = Date.now() + ${timeout};`,
        `while (!(await page.$$eval(${root}, ${script.use(EVALUATE_EXPRESSION_HELPER)}, ${script.text(step.expression)}))) {`,
        `  if (Date.now() >= deadline) throw new Error(${JSON.stringify(expressionTimeout(step.timeout ?? LOCATE_DEFAULT_TIMEOUT_MS))});`,
        `  await page.waitForTimeout(${LOCATE_POLL_MS});`,
        '}',
      ];
    }
    if (step.selector === undefined) return [`await page.waitForTimeout(${script.number(step.ms ?? 0)});`];
    const element = { ...step, selector: step.selector };
    const wanted = countWanted(step);
    if (wanted === null) {
      const target = scriptTarget(element, script);
      return [
        ...target.setup,
        `await page.waitForSelector(${target.selector}${script.options(["state: 'visible'"])});`,
      ];
    }
    return [
      `const target = await ${script.use(LOCATE_ELEMENT_HELPER)}(page, ${selectorLiteral(step.selector, script)}, ${JSON.stringify(framePrefix(step.frame))}, ${timeout}, ${JSON.stringify(wanted.filters)}, ${JSON.stringify({ count: wanted.count, operator: wanted.operator, visible: wanted.visible })});`,
      'return { selector: target.matched };',
    ];
  },
});

type WaitForFields = {
  selector?: unknown;
  count?: number;
  operator?: CountOperator;
  visible?: boolean;
  properties?: Record<string, unknown>;
  attributes?: Record<string, string>;
};

/** What a counting waitFor wants, or null for the plain "wait until visible" of a single selector. */
function countWanted(step: WaitForFields): CountWanted | null {
  const counting = typeof step.selector !== 'string' || COUNT_FIELDS.some((field) => step[field] !== undefined);
  if (!counting) return null;
  const filters: ElementFilters = {};
  if (step.properties) filters.properties = step.properties;
  if (step.attributes) filters.attributes = step.attributes;
  return { count: step.count ?? 1, operator: step.operator ?? '==', visible: step.visible ?? true, filters };
}

function expressionTimeout(ms: number): string {
  return `The expression was not truthy within ${ms} ms`;
}

async function waitForExpression(
  page: StepPage,
  expression: string,
  frame: number[] | undefined,
  timeoutMs: number,
): Promise<undefined> {
  const deadline = Date.now() + timeoutMs;
  const root = page.locator(`${framePrefix(frame)}:root`);
  while (!(await root.evaluateAll(expressionIsTruthyInPage, expression))) {
    if (Date.now() >= deadline) throw new Error(expressionTimeout(timeoutMs));
    await page.waitForTimeout(LOCATE_POLL_MS);
  }
  return undefined;
}
