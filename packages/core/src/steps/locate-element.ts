import {
  alternativesOf,
  describeSelector,
  framePrefix,
  isPlainSelector,
  NAMED_ROLES,
  toPlaywrightSelector,
  type ElementSelector,
  type SelectorAlternative,
} from './element-selector';
import { pageFunction, PROBE_ELEMENTS_HELPER, type ElementFilters, type ElementProbe } from './page-functions';
import type { ScriptHelper, ScriptWriter } from './script-writer';
import type { StepPage } from './step-page';

/*
 * Finding the element of a step whose selector is a list of alternatives: each round tries them
 * in order and the first that matches wins; rounds repeat until the step's timeout, so an element
 * that appears late is still found. The interpreter runs the TypeScript below; the generated
 * script runs LOCATE_ELEMENT_HELPER, the same algorithm in the script's JavaScript (a test keeps
 * the two translations equal, and the step action tests run both ways against the same pages).
 */

/** How often alternatives are tried again while none matches (ms). */
export const LOCATE_POLL_MS = 100;
/** The timeout a generated script gives the search when its step has none (the interpreter's default). */
export const LOCATE_DEFAULT_TIMEOUT_MS = 15_000;

const FRAME_TAGS = new Set(['IFRAME', 'FRAME']);

/** A step that acts on an element. */
export interface ElementStep {
  selector: ElementSelector;
  frame?: number[] | undefined;
  timeout?: number | undefined;
}

/** The Playwright selector to act on, and the alternative that matched (null for a single selector). */
export interface LocatedElement {
  selector: string;
  matched: SelectorAlternative | null;
}

/** How many of the selector's matches pass `filters`, and the first match's tag. */
export const probe = (page: StepPage, selector: string, filters: ElementFilters | null): Promise<ElementProbe> =>
  page
    .locator(selector)
    .evaluateAll(pageFunction<ElementProbe>(PROBE_ELEMENTS_HELPER), filters ? JSON.stringify(filters) : null);

/**
 * The selector of a chain's last link, with the links before it entered in turn (an iframe's
 * document, or the element itself, whose shadow root Playwright's engines pierce); null when a
 * link before the last matches nothing yet.
 */
async function chainSelector(page: StepPage, prefix: string, chain: readonly string[]): Promise<string | null> {
  let base = prefix;
  for (const [i, link] of chain.entries()) {
    const selector = base + toPlaywrightSelector(link);
    if (i === chain.length - 1) return selector;
    const { count, tag } = await probe(page, selector, null);
    if (count === 0) return null;
    base = `${selector} >> nth=0 >> ${FRAME_TAGS.has(tag) ? 'internal:control=enter-frame >> ' : ''}`;
  }
  return null;
}

/** One line naming every alternative tried, and why one could not be used when it could not. */
function noMatchMessage(selector: readonly SelectorAlternative[], problems: ReadonlyMap<number, string>, ms: number) {
  const tried = alternativesOf(selector).map((chain, i) => {
    const problem = problems.get(i);
    return `"${chain.join(' >> ')}"${problem ? ` (${problem})` : ''}`;
  });
  return `No element matched any selector alternative within ${ms} ms; tried ${tried.join(', ')}`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n').find((line) => line.trim() !== '') ?? text).replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '').trim();
}

/**
 * Tries `selector`'s alternatives in rounds until `test` accepts one or `timeoutMs` passes; the
 * failure names every alternative. `test` gets the chain's selector (null when its chain is not
 * there yet) and may throw for a selector Playwright refuses.
 */
async function pollAlternatives(
  page: StepPage,
  step: ElementStep & { selector: readonly SelectorAlternative[] },
  timeoutMs: number,
  test: (selector: string | null) => Promise<boolean>,
): Promise<LocatedElement> {
  const deadline = Date.now() + timeoutMs;
  const prefix = framePrefix(step.frame);
  const chains = alternativesOf(step.selector);
  const problems = new Map<number, string>();
  for (;;) {
    for (const [i, chain] of chains.entries()) {
      try {
        const selector = await chainSelector(page, prefix, chain);
        if (await test(selector)) return { selector: selector ?? '', matched: step.selector[i]! };
      } catch (error) {
        problems.set(i, firstLine(error));
      }
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(noMatchMessage(step.selector, problems, timeoutMs));
    await page.waitForTimeout(Math.min(LOCATE_POLL_MS, left));
  }
}

/** The element a step acts on. A single selector is handed to Playwright as it is, which waits for it. */
export async function locateElement(page: StepPage, step: ElementStep, timeoutMs: number): Promise<LocatedElement> {
  const { selector } = step;
  if (typeof selector === 'string')
    return { selector: framePrefix(step.frame) + toPlaywrightSelector(selector), matched: null };
  return pollAlternatives(page, { ...step, selector }, timeoutMs, async (candidate) =>
    candidate === null ? false : (await probe(page, candidate, null)).count > 0,
  );
}

/** How a waitFor step compares the number of matching elements with its `count`. */
export type CountOperator = '>=' | '==' | '<=';

export function compareCount(actual: number, operator: CountOperator, expected: number): boolean {
  if (operator === '>=') return actual >= expected;
  if (operator === '<=') return actual <= expected;
  return actual === expected;
}

/** Waits until an alternative's matches passing `filters` compare with `count` (a chain not there counts 0). */
export async function waitForCount(
  page: StepPage,
  step: ElementStep,
  wanted: { count: number; operator: CountOperator; filters: ElementFilters },
  timeoutMs: number,
): Promise<LocatedElement> {
  const selector = typeof step.selector === 'string' ? [step.selector] : step.selector;
  return pollAlternatives(page, { ...step, selector }, timeoutMs, async (candidate) => {
    const count = candidate === null ? 0 : (await probe(page, candidate, wanted.filters)).count;
    return compareCount(count, wanted.operator, wanted.count);
  }).catch((error: unknown) => {
    throw new Error(
      firstLine(error).replace(
        'No element matched any selector alternative',
        `No selector alternative matched ${wanted.operator} ${wanted.count} element${wanted.count === 1 ? '' : 's'}`,
      ),
    );
  });
}

/** The step's output for the element it found: `{ selector }` naming the matched alternative. */
export function locatedOutput(located: LocatedElement): { selector: SelectorAlternative } | undefined {
  return located.matched === null ? undefined : { selector: located.matched };
}

/** `click "aria/Buy" (+2 alternatives) in frame 0`: names an element step in logs and errors. */
export function describeElement(step: { selector: ElementSelector; frame?: number[] | undefined }): string {
  return `${describeSelector(step.selector)}${step.frame ? ` in frame ${step.frame.join('.')}` : ''}`;
}

/*
 * The generated script's side. A step whose selector is plain (what steps always had) keeps its
 * one-line form; any other first finds its element with locateElement, which runs in the
 * sandbox and only hands selector strings to the page facade.
 */

/** The script's copy of toPlaywrightSelector (element-selector.ts); a test keeps the two equal. */
export const PLAYWRIGHT_SELECTOR_HELPER: ScriptHelper = {
  name: 'playwrightSelector',
  source: `// A Recorder selector (aria/, xpath/, text/, pierce/; else Playwright's own) as a Playwright
// selector: aria/ matches the whole accessible name in any case and spacing, text/ any case.
function playwrightSelector(text) {
  const match = /^(aria|xpath|text|pierce)\\/([\\s\\S]*)$/.exec(text);
  if (!match) return text;
  const body = match[2];
  if (match[1] === 'xpath') return 'xpath=' + body;
  if (match[1] === 'pierce') return 'css=' + body;
  if (match[1] === 'text') return 'internal:text=' + JSON.stringify(body) + 'i';
  const roleMatch = /\\[role="([^"]*)"\\]\\s*$/.exec(body);
  const name = (roleMatch ? body.slice(0, roleMatch.index) : body).trim();
  const words = name.split(/\\s+/).map((word) => word.replace(/[.*+?^\${}()|[\\]\\\\/]/g, '\\\\$&'));
  const regex = ('^\\\\s*' + words.join('\\\\s+') + '\\\\s*$').replace(/(["'\`])/g, '\\\\$1').replace(/>>/g, '\\\\>\\\\>');
  const nameFilter = name === '' ? '' : '[name=/' + regex + '/i]';
  if (roleMatch) return 'internal:role=' + roleMatch[1] + nameFilter;
  return ${JSON.stringify(NAMED_ROLES)}
    .map((role, i) => (i === 0 ? 'internal:role=' + role + nameFilter : 'internal:or=' + JSON.stringify('internal:role=' + role + nameFilter)))
    .join(' >> ');
}`,
};

export const LOCATE_ELEMENT_HELPER: ScriptHelper = {
  name: 'locateElement',
  source: `// Finds a step's element: each round tries the selector alternatives in order, the first that
// matches wins; a chain enters each link's iframe or shadow root in turn. Recorder prefixes
// (aria/, xpath/, text/, pierce/) become Playwright selectors. Answers the Playwright selector and
// the alternative that matched (null for a single selector, which Playwright waits for itself).
async function locateElement(page, selector, frame, timeoutMs, filters, wanted) {
  const prefix = (frame || []).map((i) => ':is(iframe, frame) >> nth=' + i + ' >> internal:control=enter-frame >> ').join('');
  if (typeof selector === 'string' && !wanted) return { selector: prefix + playwrightSelector(selector), matched: null };
  const alternatives = typeof selector === 'string' ? [selector] : selector;
  const probe = (target, withFilters) => page.$$eval(target, probeElements, withFilters ? JSON.stringify(withFilters) : null);
  const chainSelector = async (chain) => {
    let base = prefix;
    for (let i = 0; i < chain.length; i++) {
      const target = base + playwrightSelector(chain[i]);
      if (i === chain.length - 1) return target;
      const found = await probe(target, null);
      if (found.count === 0) return null;
      base = target + ' >> nth=0 >> ' + (found.tag === 'IFRAME' || found.tag === 'FRAME' ? 'internal:control=enter-frame >> ' : '');
    }
    return null;
  };
  const accepts = async (target) => {
    if (!wanted) return target !== null && (await probe(target, null)).count > 0;
    const count = target === null ? 0 : (await probe(target, filters)).count;
    return wanted.operator === '>=' ? count >= wanted.count : wanted.operator === '<=' ? count <= wanted.count : count === wanted.count;
  };
  const firstLine = (error) => {
    const text = error && typeof error.message === 'string' ? error.message : String(error);
    return (text.split('\\n').find((line) => line.trim() !== '') || text).replace(/^[a-zA-Z]+\\.[a-zA-Z]+: /, '').trim();
  };
  const deadline = Date.now() + timeoutMs;
  const problems = new Map();
  for (;;) {
    for (let i = 0; i < alternatives.length; i++) {
      const chain = typeof alternatives[i] === 'string' ? [alternatives[i]] : alternatives[i];
      try {
        const target = await chainSelector(chain);
        if (await accepts(target)) return { selector: target === null ? '' : target, matched: alternatives[i] };
      } catch (error) {
        problems.set(i, firstLine(error));
      }
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const tried = alternatives.map((alternative, i) => {
        const chain = typeof alternative === 'string' ? [alternative] : alternative;
        return '"' + chain.join(' >> ') + '"' + (problems.has(i) ? ' (' + problems.get(i) + ')' : '');
      });
      const what = wanted
        ? 'No selector alternative matched ' + wanted.operator + ' ' + wanted.count + ' element' + (wanted.count === 1 ? '' : 's')
        : 'No element matched any selector alternative';
      throw new Error(what + ' within ' + timeoutMs + ' ms; tried ' + tried.join(', '));
    }
    await page.waitForTimeout(Math.min(${LOCATE_POLL_MS}, left));
  }
}`,
  needs: [PROBE_ELEMENTS_HELPER, PLAYWRIGHT_SELECTOR_HELPER],
};

/** A JavaScript expression for a step's selector: a string, or the array of alternatives. */
export function selectorLiteral(selector: ElementSelector, script: ScriptWriter): string {
  if (typeof selector === 'string') return script.text(selector);
  const alternative = (a: SelectorAlternative) =>
    typeof a === 'string' ? script.text(a) : `[${a.map((link) => script.text(link)).join(', ')}]`;
  return `[${selector.map(alternative).join(', ')}]`;
}

/** What a generated step does to find its element: statements to run first, then the selector expression. */
export interface ScriptTarget {
  setup: string[];
  selector: string;
  /** Statements ending the step: its output naming the matched alternative (none for a plain selector). */
  output: string[];
}

export function scriptTarget(step: ElementStep, script: ScriptWriter): ScriptTarget {
  if (isPlainSelector(step.selector, step.frame))
    return { setup: [], selector: script.text(step.selector), output: [] };
  const frame = step.frame ? JSON.stringify(step.frame) : 'null';
  const timeout = script.number(step.timeout ?? LOCATE_DEFAULT_TIMEOUT_MS);
  return {
    setup: [
      `const target = await ${script.use(LOCATE_ELEMENT_HELPER)}(page, ${selectorLiteral(step.selector, script)}, ${frame}, ${timeout});`,
    ],
    selector: 'target.selector',
    output: ['return target.matched === null ? undefined : { selector: target.matched };'],
  };
}

/** What is left of a step's time (ms) once finding its element took some; at least 1. */
export function timeLeft(startedAt: number, timeoutMs: number): number {
  return Math.max(1, timeoutMs - (Date.now() - startedAt));
}
