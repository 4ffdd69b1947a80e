import { pageFunctionFromSource, type PageFunction } from '../page-function';
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

/**
 * What `probeElements` answers: how many elements matched, how many of them carry the filters'
 * attributes and property values, whether the first is visible, and its tag.
 */
export interface ElementProbe {
  count: number;
  passing: number;
  firstVisible: boolean;
  tag: string;
}

/** What a waitFor step checks on every element it counts (JSON in the page function's argument). */
export interface ElementFilters {
  properties?: Record<string, unknown>;
  attributes?: Record<string, string>;
}

export const PROBE_ELEMENTS_HELPER: ScriptHelper = {
  name: 'probeElements',
  source: `// Runs in the page: how many matches there are, how many carry the filters' attributes and
// property values (a property object matching as a subset), whether the first is visible (a
// box of some size, not visibility: hidden, as Playwright and Puppeteer judge it), its tag.
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
    for (const [name, value] of Object.entries(filters.attributes || {})) {
      if (el.getAttribute(name) !== value) return false;
    }
    return matches(el, filters.properties || {});
  });
  const first = elements[0];
  return { count: elements.length, passing: passing.length, firstVisible: first ? isVisible(first) : false, tag: first ? first.tagName : '' };
}`,
};

/** What `frameDocument` answers about the document of a frame (null when the frame is not there). */
export interface FrameDocument {
  href: string;
  ready: boolean;
  /** Differs for every document a frame loads: how a navigation without a URL is told. */
  timeOrigin: number;
}

export const FRAME_DOCUMENT_HELPER: ScriptHelper = {
  name: 'frameDocument',
  source: `// Runs in the page, on a frame's root element: the frame's URL, whether its document has
// loaded, and the document's time origin (a new one for every document the frame loads).
function frameDocument(elements) {
  const root = elements[0];
  if (!root) return null;
  const doc = root.ownerDocument;
  return { href: doc.location.href, ready: doc.readyState === 'complete', timeOrigin: doc.defaultView.performance.timeOrigin };
}`,
};

/** What `prepareKeystrokes` left to do: type `text` into the focused element, click (a checkable), nothing, or fail. */
export type PreparedKeystrokes = { how: 'type'; text: string } | { how: 'click' | 'done' | 'unknown' };

export const PREPARE_KEYSTROKES_HELPER: ScriptHelper = {
  name: 'prepareKeystrokes',
  source: `// Runs in the page, on the element a Recorder change step fills, doing what Chrome's replay
// (puppeteer's Locator.fill) does in the page: a select gets the option whose value it is; a
// text input, textarea or editable element is cleared unless it holds a prefix of the value, and
// the rest is left to type (at 100 characters or more, or for another input type, the value is
// set at once with input and change events); a checkbox or radio is left to click when its
// state differs from the value's truthiness.
function prepareKeystrokes(elements, value) {
  const el = elements[0];
  if (!el) return { how: 'unknown' };
  const setAtOnce = () => {
    el.focus();
    const current = el.isContentEditable ? el.innerText : el.value;
    if (current === value) return { how: 'done' };
    if (el.isContentEditable) el.innerText = value;
    else el.value = value;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { how: 'done' };
  };
  const view = el.ownerDocument.defaultView;
  if (el instanceof view.HTMLSelectElement) {
    // Deselect all first: unselecting a single select's only option selects its first again.
    for (const option of el.options) option.selected = false;
    const chosen = Array.from(el.options).find((option) => option.value === value);
    if (chosen) chosen.selected = true;
    el.dispatchEvent(new Event('input', { bubbles: true }));
    el.dispatchEvent(new Event('change', { bubbles: true }));
    return { how: 'done' };
  }
  const typed = ['text', 'url', 'tel', 'search', 'password', 'number', 'email'];
  const checkable = el instanceof view.HTMLInputElement ? el.type === 'checkbox' || el.type === 'radio' : ['checkbox', 'radio', 'switch'].includes(el.getAttribute('role'));
  if (checkable) {
    const state = el.indeterminate || el.getAttribute('aria-checked') === 'mixed' ? 'mixed' : el.checked || el.getAttribute('aria-checked') === 'true';
    return state === 'mixed' || state !== Boolean(value) ? { how: 'click' } : { how: 'done' };
  }
  const typeable = el instanceof view.HTMLTextAreaElement || (el instanceof view.HTMLInputElement && typed.includes(el.type)) || (!(el instanceof view.HTMLInputElement) && el.isContentEditable);
  if (el instanceof view.HTMLInputElement && !typeable) return setAtOnce();
  if (!typeable) return { how: 'unknown' };
  if (value.length >= 100) return setAtOnce();
  // Focused as puppeteer's ElementHandle.type focuses (the caret stays where the value left it);
  // the caller types the rest on the keyboard.
  el.focus();
  const current = el.isContentEditable ? el.innerText : el.value;
  if (current === value) return { how: 'done' };
  if (!value.startsWith(current) || !current) {
    if (el.isContentEditable) el.innerText = '';
    else el.value = '';
    return { how: 'type', text: value };
  }
  if (el.isContentEditable) {
    el.innerText = '';
    el.innerText = current;
  } else {
    el.value = '';
    el.value = current;
  }
  return { how: 'type', text: value.substring(current.length) };
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

/** A helper as the interpreter hands it to evaluateAll: the same text the generated script emits. */
type HelperInPage<R> = PageFunction<(elements: PageElement[], arg: string | null) => R>;

function helperInPage<R>(helper: ScriptHelper): HelperInPage<R> {
  return pageFunctionFromSource(helper.name, helper.source);
}

export const probeElementsInPage = helperInPage<ElementProbe>(PROBE_ELEMENTS_HELPER);
export const frameDocumentInPage = helperInPage<FrameDocument | null>(FRAME_DOCUMENT_HELPER);
export const prepareKeystrokesInPage = helperInPage<PreparedKeystrokes>(PREPARE_KEYSTROKES_HELPER);
export const scrollToPointInPage = helperInPage<boolean>(SCROLL_TO_HELPER);
export const expressionIsTruthyInPage = helperInPage<boolean>(EVALUATE_EXPRESSION_HELPER);
