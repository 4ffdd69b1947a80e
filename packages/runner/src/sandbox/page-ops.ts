import { normalizeUrl } from '@botfleet/core';
import type { Page } from 'playwright-core';
import type { RunSession } from '../run-session';
import type { BridgeArgs } from './bridge-args';

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
    async (a, { page, timeout }) => {
      const url = navigableUrl(a, a.string(0, 'url'), page.url());
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
  ['textContent', readElement((page, selector, options) => page.textContent(selector, options))],
  ['innerText', readElement((page, selector, options) => page.innerText(selector, options))],
  ['inputValue', readElement((page, selector, options) => page.inputValue(selector, options))],
  [
    'getAttribute',
    async (a, { page, timeout }) => {
      const o = a.options(2, ['timeout']);
      return page.getAttribute(a.string(0, 'selector'), a.string(1, 'name'), { timeout: timeout(o.number('timeout')) });
    },
  ],
  ['isVisible', async (a, { page }) => page.isVisible(a.string(0, 'selector'))],
  ['title', async (_a, { page }) => page.title()],
  ['url', async (_a, { page }) => page.url()],
  ['content', async (_a, { page }) => page.content()],
  [
    'screenshot',
    async (a, { page, session, timeout }) => {
      const o = a.options(0, ['fullPage', 'timeout']);
      // Never `path`: the image goes to the session's artifact store, not to the worker's disk.
      const image = await page.screenshot({
        type: 'png',
        fullPage: o.boolean('fullPage'),
        timeout: timeout(o.number('timeout')),
      });
      return { artifactId: await session.saveArtifact('screenshot', 'image/png', image) };
    },
  ],
  ['evaluate', async (a, { page }) => page.evaluate(pageFunction<[unknown]>(a, 0), a.json(1))],
  [
    '$eval',
    async (a, { page }) => page.$eval(a.string(0, 'selector'), pageFunction<[Element, unknown]>(a, 1), a.json(2)),
  ],
  [
    '$$eval',
    async (a, { page }) => page.$$eval(a.string(0, 'selector'), pageFunction<[Element[], unknown]>(a, 1), a.json(2)),
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

function readElement(read: (page: Page, selector: string, options: { timeout: number }) => Promise<unknown>): PageOp {
  return async (a, { page, timeout }) =>
    read(page, a.string(0, 'selector'), { timeout: timeout(a.options(1, ['timeout']).number('timeout')) });
}

/**
 * Scripts may open web pages only: file:, chrome:, view-source: and the like stay closed. A
 * relative URL resolves against the current page, as a link would (and as `goto` steps do).
 */
function navigableUrl(a: BridgeArgs, raw: string, currentUrl: string): string {
  if (raw === 'about:blank') return raw;
  let url: URL;
  try {
    url = new URL(raw, currentUrl);
  } catch {
    throw a.error(`'${raw.slice(0, 200)}' is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw a.error('only http and https URLs can be opened');
  return url.href;
}

/**
 * A page function arrives as the source text of a function defined in the script. Playwright
 * serialises a function with String(fn) and runs that text inside the web page (Node only
 * parses it), so a stub whose toString returns the source ships the script's function to the
 * page without it ever running in the worker.
 */
function pageFunction<Args extends unknown[]>(a: BridgeArgs, index: number): (...args: Args) => unknown {
  const source = a.string(index, 'the page function');
  if (source.length > MAX_PAGE_FUNCTION_CHARS)
    throw a.error(`the page function is longer than ${MAX_PAGE_FUNCTION_CHARS} characters`);
  const stub = (): unknown => undefined;
  Object.defineProperty(stub, 'toString', { value: () => source });
  return stub;
}
