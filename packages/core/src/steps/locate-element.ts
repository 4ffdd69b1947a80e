import {
  alternativesOf,
  framePrefix,
  isPlainSelector,
  NAMED_ROLES,
  toPlaywrightSelector,
  type ElementSelector,
  type SelectorAlternative,
} from './element-selector';
import { PROBE_ELEMENTS_HELPER, probeElementsInPage, type ElementFilters, type ElementProbe } from './page-functions';
import type { ScriptHelper, ScriptWriter } from './script-writer';
import { describeSelector } from './selector-text';
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
  page.locator(selector).evaluateAll(probeElementsInPage, filters ? JSON.stringify(filters) : null);

/**
 * The selector of a chain's last link, looked up inside every match of the link before it (an
 * element's subtree, its shadow root included: Playwright's engines pierce open shadow roots),
 * as @puppeteer/replay looks up a chain across every host; an iframe link enters its document
 * (the first such iframe's). Null when a link before the last matches nothing yet.
 */
async function chainSelector(page: StepPage, prefix: string, chain: readonly string[]): Promise<string | null> {
  let base = prefix;
  for (const [i, link] of chain.entries()) {
    const selector = base + toPlaywrightSelector(link);
    if (i === chain.length - 1) return selector;
    const { count, tag } = await probe(page, selector, null);
    if (count === 0) return null;
    base = FRAME_TAGS.has(tag) ? `${selector} >> nth=0 >> internal:control=enter-frame >> ` : `${selector} >> `;
  }
  return null;
}

/** `<what> within <ms> ms; tried ...`: every alternative tried, and why one could not be used when it could not. */
function noMatchMessage(
  what: string,
  selector: readonly SelectorAlternative[],
  problems: ReadonlyMap<number, string>,
  ms: number,
) {
  const tried = alternativesOf(selector).map((chain, i) => {
    const problem = problems.get(i);
    return `"${chain.join(' >> ')}"${problem ? ` (${problem})` : ''}`;
  });
  return `${what} within ${ms} ms; tried ${tried.join(', ')}`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (text.split('\n').find((line) => line.trim() !== '') ?? text).replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '').trim();
}

/** How a search over alternatives goes: what wins a round, and whether its winner ends the search. */
interface SearchRule {
  /** Checked on every match of an alternative (a waitFor's attributes and properties), or null. */
  filters: ElementFilters | null;
  /** Whether an alternative's matches win the round (alternatives are tried in order). */
  wins: (found: ElementProbe) => boolean;
  /** Whether the round's winner (null: none won) ends the search. */
  ends: (winner: ElementProbe | null) => boolean;
  /** The failure's first words, once the time is up. */
  failure: string;
}

/**
 * Tries `selector`'s alternatives in rounds until a round ends the search or `timeoutMs` passes;
 * the failure names every alternative. A chain that is not there yet wins nothing; a selector
 * Playwright refuses is named in the failure. The generated script runs the same rounds
 * (LOCATE_ELEMENT_HELPER).
 */
async function pollAlternatives(
  page: StepPage,
  step: ElementStep & { selector: readonly SelectorAlternative[] },
  timeoutMs: number,
  rule: SearchRule,
): Promise<LocatedElement> {
  const deadline = Date.now() + timeoutMs;
  const prefix = framePrefix(step.frame);
  const chains = alternativesOf(step.selector);
  const problems = new Map<number, string>();
  for (;;) {
    let winner: { index: number; selector: string; found: ElementProbe } | null = null;
    for (const [index, chain] of chains.entries()) {
      try {
        const selector = await chainSelector(page, prefix, chain);
        const found = selector === null ? null : await probe(page, selector, rule.filters);
        if (selector !== null && found !== null && rule.wins(found)) {
          winner = { index, selector, found };
          break;
        }
      } catch (error) {
        problems.set(index, firstLine(error));
      }
    }
    if (rule.ends(winner?.found ?? null))
      return { selector: winner?.selector ?? '', matched: step.selector[winner?.index ?? 0]! };
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(noMatchMessage(rule.failure, step.selector, problems, timeoutMs));
    await page.waitForTimeout(Math.min(LOCATE_POLL_MS, left));
  }
}

/**
 * The element a step acts on. A single selector is handed to Playwright as it is, which waits for
 * it. Of alternatives, the first whose first match is visible wins: @puppeteer/replay races them
 * and acts on the first that becomes visible, so one that matches only a hidden element (a
 * template, a closed menu's twin) must not win over a later one the user could see.
 */
export async function locateElement(page: StepPage, step: ElementStep, timeoutMs: number): Promise<LocatedElement> {
  const { selector } = step;
  if (typeof selector === 'string')
    return { selector: framePrefix(step.frame) + toPlaywrightSelector(selector), matched: null };
  return pollAlternatives(page, { ...step, selector }, timeoutMs, {
    filters: null,
    wins: (found) => found.firstVisible,
    ends: (winner) => winner !== null,
    failure: 'No element matched any selector alternative',
  });
}

/** How a waitFor step compares the number of matching elements with its `count`. */
export type CountOperator = '>=' | '==' | '<=';

export function compareCount(actual: number, operator: CountOperator, expected: number): boolean {
  if (operator === '>=') return actual >= expected;
  if (operator === '<=') return actual <= expected;
  return actual === expected;
}

/** What a counting waitFor waits for (the Recorder's waitForElement, read as @puppeteer/replay reads it). */
export interface CountWanted {
  count: number;
  operator: CountOperator;
  /** false inverts the wait: it ends when the condition does not hold (the element went away). */
  visible: boolean;
  filters: ElementFilters;
}

/**
 * Waits until the elements of the first alternative that matches any (none: zero elements) are
 * `operator` `count` in number and all carry the filters' attributes and property values, or,
 * with `visible: false`, until that does not hold. Polled, like the Recorder's own replay.
 */
export async function waitForCount(
  page: StepPage,
  step: ElementStep,
  wanted: CountWanted,
  timeoutMs: number,
): Promise<LocatedElement> {
  const selector = typeof step.selector === 'string' ? [step.selector] : step.selector;
  return pollAlternatives(page, { ...step, selector }, timeoutMs, {
    filters: wanted.filters,
    wins: (found) => found.count > 0,
    ends: (winner) => {
      const holds =
        compareCount(winner?.count ?? 0, wanted.operator, wanted.count) &&
        (winner === null || winner.passing === winner.count);
      return holds === wanted.visible;
    },
    failure: countFailure(wanted),
  });
}

/** `No selector alternative matched >= 2 elements` (or `still matched`, for an inverted wait). */
function countFailure({ count, operator, visible }: CountWanted): string {
  const elements = `${operator} ${count} element${count === 1 ? '' : 's'}`;
  return visible
    ? `No selector alternative matched ${elements}`
    : `The selector alternatives still matched ${elements}`;
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
  const roles = ${JSON.stringify(NAMED_ROLES)}
    .map((role, i) => (i === 0 ? 'internal:role=' + role + nameFilter : 'internal:or=' + JSON.stringify('internal:role=' + role + nameFilter)));
  if (name !== '') roles.push('internal:or=' + JSON.stringify('internal:attr=[aria-label=/' + regex + '/i]'));
  return roles.join(' >> ');
}`,
};

export const LOCATE_ELEMENT_HELPER: ScriptHelper = {
  name: 'locateElement',
  source: `// Finds a step's element: each round tries the selector alternatives in order, the first whose
// first match is visible wins; a chain looks up each link inside every match of the one before
// (an iframe link enters its document). Recorder prefixes (aria/, xpath/, text/, pierce/) become
// Playwright selectors. With \`wanted\` (a counting waitFor) it waits until the first alternative
// that matches any has \`operator count\` elements all passing the filters (or, with visible:
// false, until it has not). \`prefix\` enters the step's frame ('' for the page). Answers the
// Playwright selector and the alternative that matched (null for a single selector, which
// Playwright waits for itself).
async function locateElement(page, selector, prefix, timeoutMs, filters, wanted) {
  if (typeof selector === 'string' && !wanted) return { selector: prefix + playwrightSelector(selector), matched: null };
  const alternatives = typeof selector === 'string' ? [selector] : selector;
  const probe = (target) => page.$$eval(target, probeElements, filters ? JSON.stringify(filters) : null);
  const chainSelector = async (chain) => {
    let base = prefix;
    for (let i = 0; i < chain.length; i++) {
      const target = base + playwrightSelector(chain[i]);
      if (i === chain.length - 1) return target;
      const found = await probe(target);
      if (found.count === 0) return null;
      base = found.tag === 'IFRAME' || found.tag === 'FRAME' ? target + ' >> nth=0 >> internal:control=enter-frame >> ' : target + ' >> ';
    }
    return null;
  };
  const firstLine = (error) => {
    const text = error && typeof error.message === 'string' ? error.message : String(error);
    return (text.split('\\n').find((line) => line.trim() !== '') || text).replace(/^[a-zA-Z]+\\.[a-zA-Z]+: /, '').trim();
  };
  const deadline = Date.now() + timeoutMs;
  const problems = new Map();
  for (;;) {
    let found = null;
    for (let i = 0; i < alternatives.length && !found; i++) {
      const chain = typeof alternatives[i] === 'string' ? [alternatives[i]] : alternatives[i];
      try {
        const target = await chainSelector(chain);
        const counted = target === null ? null : await probe(target);
        if (counted && (wanted ? counted.count > 0 : counted.firstVisible)) found = { index: i, target, counted };
      } catch (error) {
        problems.set(i, firstLine(error));
      }
    }
    if (!wanted && found) return { selector: found.target, matched: alternatives[found.index] };
    if (wanted) {
      const count = found ? found.counted.count : 0;
      const compared = wanted.operator === '>=' ? count >= wanted.count : wanted.operator === '<=' ? count <= wanted.count : count === wanted.count;
      const holds = compared && (!found || found.counted.passing === found.counted.count);
      if (holds === wanted.visible) return { selector: found ? found.target : '', matched: alternatives[found ? found.index : 0] };
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const tried = alternatives.map((alternative, i) => {
        const chain = typeof alternative === 'string' ? [alternative] : alternative;
        return '"' + chain.join(' >> ') + '"' + (problems.has(i) ? ' (' + problems.get(i) + ')' : '');
      });
      const elements = wanted ? wanted.operator + ' ' + wanted.count + ' element' + (wanted.count === 1 ? '' : 's') : '';
      const what = !wanted
        ? 'No element matched any selector alternative'
        : wanted.visible ? 'No selector alternative matched ' + elements : 'The selector alternatives still matched ' + elements;
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
  const timeout = script.number(step.timeout ?? LOCATE_DEFAULT_TIMEOUT_MS);
  return {
    setup: [
      `const target = await ${script.use(LOCATE_ELEMENT_HELPER)}(page, ${selectorLiteral(step.selector, script)}, ${JSON.stringify(framePrefix(step.frame))}, ${timeout});`,
    ],
    selector: 'target.selector',
    output: ['return target.matched === null ? undefined : { selector: target.matched };'],
  };
}

/** What is left of a step's time (ms) once finding its element took some; at least 1. */
export function timeLeft(startedAt: number, timeoutMs: number): number {
  return Math.max(1, timeoutMs - (Date.now() - startedAt));
}
