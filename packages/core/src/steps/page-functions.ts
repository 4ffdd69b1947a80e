import type { ScriptHelper } from './script-writer';
import type { PageElement } from './step-page';

/*
 * Functions that run inside the web page, on every element a selector matches, for the actions
 * that recordings brought (selector alternatives, waitFor counts, scroll to a point, expressions).
 * Each is written once, as source: the generated script emits it as a helper and hands it to
 * page.$$eval, and the interpreter hands the same text to locator.evaluateAll (Playwright ships a
 * page function to the page as its source text), so both ways run the very same code. The
 * argument is one JSON string, so the structural StepPage type needs no new signature.
 */

/** What `probeElements` answers: how many matches pass the filters, and the first match's tag. */
export interface ElementProbe {
  count: number;
  tag: string;
}

/** Filters a waitFor step puts on the elements it counts (JSON in the page function's argument). */
export interface ElementFilters {
  visible?: boolean;
  properties?: Record<string, unknown>;
  attributes?: Record<string, string>;
}

export const PROBE_ELEMENTS_HELPER: ScriptHelper = {
  name: 'probeElements',
  source: `// Runs in the page: how many matches pass the filters (visible or hidden, attributes, property
// values, a property object matching as a subset), and the tag of the first match.
function probeElements(elements, filtersJson) {
  const filters = filtersJson ? JSON.parse(filtersJson) : {};
  const isVisible = (el) => {
    const box = el.getBoundingClientRect();
    const style = el.ownerDocument.defaultView.getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden';
  };
  const matches = (actual, expected) =>
    expected !== null && typeof expected === 'object'
      ? actual !== null && actual !== undefined && Object.keys(expected).every((key) => matches(actual[key], expected[key]))
      : actual === expected;
  const passing = elements.filter((el) => {
    if (typeof filters.visible === 'boolean' && isVisible(el) !== filters.visible) return false;
    for (const [name, value] of Object.entries(filters.attributes || {})) {
      if (el.getAttribute(name) !== value) return false;
    }
    return matches(el, filters.properties || {});
  });
  return { count: passing.length, tag: elements.length > 0 ? elements[0].tagName : '' };
}`,
};

export const SCROLL_TO_HELPER: ScriptHelper = {
  name: 'scrollToPoint',
  source: `// Runs in the page: scrolls the first match to { x, y }, or its window when 'page' is set.
function scrollToPoint(elements, pointJson) {
  const point = JSON.parse(pointJson);
  const el = elements[0];
  if (!el) return false;
  if (point.page) el.ownerDocument.defaultView.scrollTo(point.x, point.y);
  else el.scrollTo(point.x, point.y);
  return true;
}`,
};

export const EVALUATE_EXPRESSION_HELPER: ScriptHelper = {
  name: 'expressionIsTruthy',
  source: `// Runs in the page: evaluates the expression in the window of the first match (its frame),
// awaiting a promise, and says whether the result is truthy.
async function expressionIsTruthy(elements, expression) {
  const view = elements.length > 0 ? elements[0].ownerDocument.defaultView : window;
  return Boolean(await view.eval(expression));
}`,
};

/**
 * The helper as a function the interpreter can pass to evaluateAll: Playwright serialises it
 * with toString(), which returns the helper's source, so it never runs in the worker.
 */
export function pageFunction<R>(helper: ScriptHelper): (elements: PageElement[], arg: string | null) => R {
  const stub = (): R => {
    throw new Error(`${helper.name} runs in the page only`);
  };
  // Without the leading comment lines: Playwright reads the text as one function expression.
  const source = helper.source.replace(/^(\s*\/\/[^\n]*\n)+/, '');
  Object.defineProperty(stub, 'toString', { value: () => source });
  return stub;
}
