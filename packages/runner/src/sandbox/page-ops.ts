import {
  ARTIFACT_CONTENT_TYPES,
  assertViewport,
  boundedScreenshotOptions,
  definePageFunction,
  judgeNavigableUrl,
  normalizeUrl,
  OutputTooLargeError,
  URL_NOT_ALLOWED,
} from '@botfleet/core';
import type { Page } from 'playwright-core';
import { blockedNavigationMessage, refusedNavigation } from '../navigation-guard';
import type { RunSession } from '../run-session';
import type { BridgeArgs } from './bridge-args';
import { SANDBOX_LIMITS } from './limits';

/** What a page method needs besides its arguments. */
export interface PageOpEnv {
  page: Page;
  session: RunSession;
  /** An action timeout for Playwright, clamped so no call outlives the script's deadline. */
  timeout(requested: number | undefined): number;
  remainingMs(): number;
}

type PageOp = (args: BridgeArgs, env: PageOpEnv) => Promise<unknown>;

const MAX_PAGE_FUNCTION_CHARS = 100_000;
/** The longest message of an error a page function throws, as it reaches the script. */
const MAX_ERROR_CHARS = 2_000;
const LOAD_STATES = ['load', 'domcontentloaded', 'networkidle'] as const;
const GOTO_WAIT = [...LOAD_STATES, 'commit'] as const;
const ELEMENT_STATES = ['attached', 'detached', 'visible', 'hidden'] as const;
const BUTTONS = ['left', 'right', 'middle'] as const;
const ACTION_OPTIONS = ['timeout', 'force'];

/**
 * The script's `page` facade, method by method. Arguments are JSON from the sandbox and are
 * checked here; return values must be JSON too (never a Playwright object).
 */
export const PAGE_OPS: ReadonlyMap<string, PageOp> = new Map<string, PageOp>([
  [
    'goto',
    async (a, { page, session, timeout }) => {
      // The one check every URL a run opens goes through (url_not_allowed); generated scripts too.
      // A refusal is logged as every blocked navigation is, besides failing the call.
      const requested = a.string(0, 'url');
      const verdict = judgeNavigableUrl(requested, { base: page.url(), allowAboutBlank: true });
      if (!verdict.allowed) {
        session.log('warn', 'runner', blockedNavigationMessage(refusedNavigation(requested)));
        throw a.error(`${URL_NOT_ALLOWED}: ${verdict.reason}`);
      }
      const { url } = verdict;
      const o = a.options(1, ['timeout', 'waitUntil']);
      const response = await page.goto(url, {
        timeout: timeout(o.number('timeout')),
        waitUntil: o.oneOf('waitUntil', GOTO_WAIT),
      });
      return response ? { status: response.status(), url: response.url() } : null;
    },
  ],
  [
    'click',
    async (a, { page, timeout }) => {
      const o = a.options(1, [...ACTION_OPTIONS, 'button', 'clickCount', 'delay']);
      await page.click(a.string(0, 'selector'), {
        timeout: timeout(o.number('timeout')),
        force: o.boolean('force'),
        button: o.oneOf('button', BUTTONS),
        clickCount: o.number('clickCount'),
        delay: o.number('delay'),
      });
    },
  ],
  [
    'fill',
    async (a, { page, timeout }) => {
      const o = a.options(2, ACTION_OPTIONS);
      await page.fill(a.string(0, 'selector'), a.string(1, 'value'), {
        timeout: timeout(o.number('timeout')),
        force: o.boolean('force'),
      });
    },
  ],
  [
    'selectOption',
    async (a, { page, timeout }) => {
      const o = a.options(2, ACTION_OPTIONS);
      return page.selectOption(a.string(0, 'selector'), a.stringOrStrings(1, 'value'), {
        timeout: timeout(o.number('timeout')),
        force: o.boolean('force'),
      });
    },
  ],
  [
    'press',
    async (a, { page, timeout }) => {
      const o = a.options(2, ['timeout', 'delay']);
      await page.press(a.string(0, 'selector'), a.string(1, 'key'), {
        timeout: timeout(o.number('timeout')),
        delay: o.number('delay'),
      });
    },
  ],
  ['hover', elementAction((page, selector, options) => page.hover(selector, options))],
  ['check', elementAction((page, selector, options) => page.check(selector, options))],
  ['uncheck', elementAction((page, selector, options) => page.uncheck(selector, options))],
  // Not a Page method in Playwright (a Locator one): the `scroll` step needs it.
  [
    'scrollIntoViewIfNeeded',
    async (a, { page, timeout }) => {
      const o = a.options(1, ['timeout']);
      await page
        .locator(a.string(0, 'selector'))
        .first()
        .scrollIntoViewIfNeeded({ timeout: timeout(o.number('timeout')) });
    },
  ],
  [
    'waitForSelector',
    async (a, { page, timeout }) => {
      const o = a.options(1, ['timeout', 'state']);
      const handle = await page.waitForSelector(a.string(0, 'selector'), {
        timeout: timeout(o.number('timeout')),
        state: o.oneOf('state', ELEMENT_STATES),
      });
      await handle?.dispose();
    },
  ],
  [
    'waitForTimeout',
    async (a, { page, remainingMs }) => {
      await page.waitForTimeout(Math.max(0, Math.min(a.number(0, 'ms'), remainingMs())));
    },
  ],
  [
    'waitForLoadState',
    async (a, { page, timeout }) => {
      const state = a.optionalString(0, 'state');
      const choice = LOAD_STATES.find((s) => s === state);
      if (state !== undefined && choice === undefined) throw a.error(`state must be one of ${LOAD_STATES.join(', ')}`);
      await page.waitForLoadState(choice, { timeout: timeout(a.options(1, ['timeout']).number('timeout')) });
    },
  ],
  [
    'setViewportSize',
    async (a, { page }) => {
      const o = a.options(0, ['width', 'height']);
      const width = o.number('width');
      const height = o.number('height');
      if (width === undefined || height === undefined) throw a.error('width and height are required');
      try {
        assertViewport({ width, height });
      } catch (error) {
        throw a.error((error as Error).message);
      }
      await page.setViewportSize({ width, height });
    },
  ],
  // botfleet's own (Playwright deprecated its page.waitForNavigation): waits for the next load, or
  // with `url` until the page is at exactly that URL and loaded. Generated scripts race it with
  // the step's action, as recorded steps with a navigation wait do.
  [
    'waitForNavigation',
    async (a, { page, timeout }) => {
      const o = a.options(0, ['url', 'timeout']);
      const url = o.string('url');
      const expected = url === undefined ? undefined : normalizeUrl(url);
      const limit = timeout(o.number('timeout'));
      if (expected === undefined) await page.waitForEvent('load', { timeout: limit });
      else await page.waitForURL((current) => current.href === expected, { timeout: limit, waitUntil: 'load' });
    },
  ],
  // Read inside the page and measured there before anything crosses over (see readInPage).
  ['textContent', readElement('textContent')],
  ['innerText', readElement('innerText')],
  ['inputValue', readElement('inputValue')],
  [
    'getAttribute',
    async (a, { page, timeout }) => {
      const o = a.options(2, ['timeout']);
      const read: ElementRead = {
        kind: 'attribute',
        name: a.string(1, 'name'),
        limit: SANDBOX_LIMITS.maxTransferChars,
      };
      const locator = page.locator(a.string(0, 'selector')).first();
      return measured(
        await asPageCall('getAttribute', locator.evaluate(readInPage, read, { timeout: timeout(o.number('timeout')) })),
      );
    },
  ],
  ['isVisible', async (a, { page }) => page.isVisible(a.string(0, 'selector'))],
  [
    'title',
    async (_a, { page }) =>
      // A page can set a title of any length: measured before it crosses over, as content is.
      measured(await page.evaluate(readTitleInPage, SANDBOX_LIMITS.maxTransferChars)),
  ],
  ['url', async (_a, { page }) => page.url()],
  [
    'content',
    async (_a, { page }) =>
      // What Playwright's page.content() serialises, measured before it crosses over.
      measured(await page.evaluate(readContentInPage, SANDBOX_LIMITS.maxTransferChars)),
  ],
  [
    'screenshot',
    async (a, { page, session, timeout }) => {
      const o = a.options(0, ['fullPage', 'timeout']);
      // Never `path`: the image goes to the session's artifact store, not to the worker's disk.
      // A full page is clipped to MAX_SCREENSHOT_HEIGHT, as the screenshot step does. Masked as
      // every screenshot of the run is (RunSecrets.masksOn): a script sees the page, not its image.
      const image = await page.screenshot({
        ...boundedScreenshotOptions({
          type: 'png' as const,
          fullPage: o.boolean('fullPage') ?? false,
          timeout: timeout(o.number('timeout')),
        }),
        mask: session.secrets?.masksOn(page) ?? [],
      });
      return { artifactId: await session.saveArtifact('screenshot', ARTIFACT_CONTENT_TYPES.screenshot, image) };
    },
  ],
  // The script's page function runs inside a wrapper that measures its result in the page.
  [
    'evaluate',
    async (a, { page }) => parseMeasured(await page.evaluate(measuringPageFunction(a, 0, 'arg'), a.json(1))),
  ],
  [
    '$eval',
    async (a, { page }) =>
      parseMeasured(await page.$eval(a.string(0, 'selector'), measuringPageFunction(a, 1, 'target, arg'), a.json(2))),
  ],
  [
    '$$eval',
    async (a, { page }) =>
      parseMeasured(await page.$$eval(a.string(0, 'selector'), measuringPageFunction(a, 1, 'target, arg'), a.json(2))),
  ],
  [
    'keyboard.press',
    async (a, { page }) => {
      await page.keyboard.press(a.string(0, 'key'), { delay: a.options(1, ['delay']).number('delay') });
    },
  ],
  [
    'keyboard.type',
    async (a, { page }) => {
      await page.keyboard.type(a.string(0, 'text'), { delay: a.options(1, ['delay']).number('delay') });
    },
  ],
]);

interface ActionOptions {
  timeout: number;
  force?: boolean;
}

function elementAction(act: (page: Page, selector: string, options: ActionOptions) => Promise<void>): PageOp {
  return async (a, { page, timeout }) => {
    const o = a.options(1, ACTION_OPTIONS);
    await act(page, a.string(0, 'selector'), { timeout: timeout(o.number('timeout')), force: o.boolean('force') });
  };
}

/** What readInPage reads from an element, and the most it may send back (characters). */
interface ElementRead {
  kind: 'textContent' | 'innerText' | 'inputValue' | 'attribute';
  name: string | null;
  limit: number;
}

/** What a read inside the page answers: the text when within the limit, else how long it was. */
interface MeasuredText {
  text: string | null;
  over: number;
}

/**
 * Runs in the page: reads the element as Playwright's own textContent/innerText/inputValue/
 * getAttribute do, and sends the text back only when it is within the limit. A primitive
 * string's length cannot be faked by the page.
 */
const readInPage = definePageFunction('readElementText', (el: Element, read: ElementRead): MeasuredText => {
  let text: string | null;
  if (read.kind === 'textContent') text = el.textContent;
  else if (read.kind === 'attribute') text = el.getAttribute(read.name ?? '');
  else if (read.kind === 'innerText') {
    if (!(el instanceof HTMLElement)) throw new Error('Node is not an HTMLElement');
    text = el.innerText;
  } else {
    if (!(el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement))
      throw new Error('Node is not an <input>, <textarea> or <select> element');
    text = el.value;
  }
  return text !== null && text.length > read.limit ? { text: null, over: text.length } : { text, over: 0 };
});

/** Runs in the page: the document's title, within the limit. */
const readTitleInPage = definePageFunction('readTitle', (limit: number): MeasuredText => {
  const title = document.title;
  return title.length > limit ? { text: null, over: title.length } : { text: title, over: 0 };
});

/** Runs in the page: what Playwright's page.content() serialises, within the limit. */
const readContentInPage = definePageFunction('readContent', (limit: number): MeasuredText => {
  let html = '';
  if (document.doctype) html = new XMLSerializer().serializeToString(document.doctype);
  if (document.documentElement) html += document.documentElement.outerHTML;
  return html.length > limit ? { text: null, over: html.length } : { text: html, over: 0 };
});

/** Reads the first match of the selector inside the page (waiting for it, as Playwright's own reads do). */
function readElement(kind: 'textContent' | 'innerText' | 'inputValue'): PageOp {
  return async (a, { page, timeout }) => {
    const read: ElementRead = { kind, name: null, limit: SANDBOX_LIMITS.maxTransferChars };
    const locator = page.locator(a.string(0, 'selector')).first();
    const o = a.options(1, ['timeout']);
    return measured(
      await asPageCall(kind, locator.evaluate(readInPage, read, { timeout: timeout(o.number('timeout')) })),
    );
  };
}

/**
 * The locator-based reads fail with Playwright's name for them (`locator.evaluate: ...`); the
 * script called page.<op>, and its errors say so, as they did when these were direct calls.
 */
async function asPageCall<T>(op: string, call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof Error) error.message = error.message.replace(/^locator\.\w+:/, `page.${op}:`);
    throw error;
  }
}

function tooLarge(length: number): OutputTooLargeError {
  return new OutputTooLargeError(
    null,
    `the page returned ${length} characters, over the ${SANDBOX_LIMITS.maxTransferChars} a page call may hand back`,
  );
}

function measured(result: MeasuredText): string | null {
  if (result.over > 0) throw tooLarge(result.over);
  return result.text;
}

/** What the measuring wrapper of a script's page function answers (see measuringPageFunction). */
interface MeasuredJson {
  json: string | null;
  /** The JSON's length past the limit; -1 when the value is not JSON-serialisable. */
  over: number;
}

function parseMeasured(result: MeasuredJson): unknown {
  if (result.over < 0) throw new Error('the page returned a value that is not JSON-serialisable');
  if (result.over > 0) throw tooLarge(result.over);
  if (result.json === null) return undefined;
  try {
    return JSON.parse(result.json) as unknown;
  } catch {
    throw new Error('the page returned a value that is not JSON-serialisable');
  }
}

/**
 * A page function arrives as the source text of a function defined in the script. Playwright
 * serialises a function with String(fn) and runs that text inside the web page (Node only
 * parses it), so a stub whose toString returns the text ships it to the page without it ever
 * running in the worker. The text shipped is a wrapper around the script's function: it calls
 * it, serialises the result to JSON and measures it there, so a page function returning 100 MB
 * costs the worker nothing (only `{ json, over }` crosses over, the JSON only within the limit).
 * A thrown value crosses as a message of at most MAX_ERROR_CHARS.
 *
 * The script's text is spliced into the wrapper, so it must be one expression and nothing else:
 * text that closes the wrapper's parenthesis early (to return past the measuring) could not also
 * close a bracket, and is refused. Node only compiles the two probes, it never runs them.
 */
function measuringPageFunction(a: BridgeArgs, index: number, params: 'arg' | 'target, arg'): () => MeasuredJson {
  const source = a.string(index, 'the page function');
  if (source.length > MAX_PAGE_FUNCTION_CHARS)
    throw a.error(`the page function is longer than ${MAX_PAGE_FUNCTION_CHARS} characters`);
  try {
    // Compiled to check its shape, never called.
    new Function(`return (${source}\n);`);
    new Function(`return [${source}\n];`);
  } catch {
    throw a.error('the page function must be a single function expression');
  }
  const wrapper = `async (${params}) => {
  const fn = (${source}
);
  if (typeof fn !== 'function') throw new Error('the page function is not a function');
  let value;
  try {
    value = await fn(${params});
  } catch (error) {
    const message = error instanceof Error ? error.message : error;
    throw new Error(String(message).slice(0, ${MAX_ERROR_CHARS}));
  }
  let json;
  try {
    json = JSON.stringify(value);
  } catch {
    return { json: null, over: -1 };
  }
  if (typeof json !== 'string') return { json: null, over: 0 };
  return json.length > ${SANDBOX_LIMITS.maxTransferChars} ? { json: null, over: json.length } : { json, over: 0 };
}`;
  const stub = (): MeasuredJson => ({ json: null, over: 0 });
  Object.defineProperty(stub, 'toString', { value: () => wrapper });
  return stub;
}
