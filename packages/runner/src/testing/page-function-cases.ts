import { waitUntil } from '@botfleet/testkit';
import type { BrowserContext, Page } from 'playwright-core';
import { installWebRtcGuard } from '../webrtc-guard';

/*
 * One case per page function declared with @botfleet/core's definePageFunction or
 * pageFunctionFromSource: how the product hands it to Playwright, and what it must answer or do.
 * page-functions.test.ts runs every declared page function through tsx (the loader `npm start`
 * uses) in Chromium and fails for one without a case here, so a new page function is covered as
 * soon as it is declared.
 */

/** A declared page function, callable the way Playwright's typings want it. */
export type InPage = (...args: unknown[]) => unknown;

export interface PageFunctionRun {
  /** The declared function, as the registry holds it (its text is what reaches the page). */
  fn: InPage;
  /** A fresh context of its own (init scripts added here apply to pages opened afterwards). */
  context: BrowserContext;
  /** Opens a page of `context` showing `html`, served from loopback. */
  open(html: string): Promise<Page>;
}

export interface PageFunctionCase {
  run(env: PageFunctionRun): Promise<unknown>;
  /** What `run` answers when the function ran as written. */
  expected: unknown;
}

/** What the checking script prints for one page function. */
export interface PageFunctionResult {
  value?: unknown;
  error?: string;
  /** Uncaught errors of the case's pages (an init script's ReferenceError lands here). */
  pageErrors: string[];
}

export interface PageFunctionReport {
  /** Every declared page function, by name. */
  declared: string[];
  results: Record<string, PageFunctionResult>;
}

const LIMIT = 100_000;
const TALL_PAGE = '<!doctype html><body style="margin:0"><div style="height:5000px">tall</div></body>';

export const PAGE_FUNCTION_CASES: Readonly<Record<string, PageFunctionCase>> = {
  // With the private network closed: the constructors throw and the worker hears of it.
  removeWebRtc: {
    async run({ context, open }) {
      const blocked: string[] = [];
      await installWebRtcGuard(context, (what) => blocked.push(what));
      const page = await open('<!doctype html><body></body>');
      const thrown = await page.evaluate(
        `(() => { try { new RTCPeerConnection(); return 'constructed'; } catch (e) { return e.name; } })()`,
      );
      await waitUntil(() => blocked.length > 0, { timeoutMs: 30_000, message: 'the WebRTC report' });
      return { thrown, blocked };
    },
    expected: { thrown: 'NotSupportedError', blocked: ['RTCPeerConnection'] },
  },
  readElementText: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><p id="t"> hello </p>');
      return page.locator('#t').evaluate(fn, { kind: 'textContent', name: null, limit: LIMIT });
    },
    expected: { text: ' hello ', over: 0 },
  },
  readTitle: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><title>Shop</title>');
      return [await page.evaluate(fn, LIMIT), await page.evaluate(fn, 2)];
    },
    expected: [
      { text: 'Shop', over: 0 },
      { text: null, over: 4 },
    ],
  },
  readContent: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><html><head></head><body><p>x</p></body></html>');
      return page.evaluate(fn, LIMIT);
    },
    expected: { text: '<!DOCTYPE html><html><head></head><body><p>x</p></body></html>', over: 0 },
  },
  extractOneValue: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><span id="price" data-c="EUR"> 9.99 </span>');
      return page.locator('#price').evaluate(fn, { attribute: null, fields: null, limit: LIMIT });
    },
    expected: { value: '9.99' },
  },
  extractAllValues: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><ul><li> a </li><li>b</li></ul>');
      return page.locator('li').evaluateAll(fn, { attribute: null, fields: null, limit: LIMIT });
    },
    expected: { value: ['a', 'b'] },
  },
  // A field inside an open shadow root: read through the function's named inner helper.
  extractRecordFields: {
    async run({ fn, open }) {
      const page = await open(`<!doctype html>
        <div class="item"><b class="name">A</b></div><div class="item" id="host"></div>
        <script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML = '<b class="name">B</b>';</script>`);
      const fields = [{ name: 'name', selector: '.name', attribute: null }];
      return page.locator('.item').evaluateAll(fn, { attribute: null, fields, limit: LIMIT });
    },
    expected: { value: [{ name: 'A' }, { name: 'B' }] },
  },
  scrollToBottom: {
    async run({ fn, open }) {
      const page = await open(TALL_PAGE);
      await page.evaluate(fn);
      return page.evaluate('window.scrollY > 0');
    },
    expected: true,
  },
  probeElements: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><button id="b" name="go">Go</button>');
      return page.locator('#b').evaluateAll(fn, JSON.stringify({ attributes: { name: 'go' } }));
    },
    expected: { count: 1, passing: 1, firstVisible: true, tag: 'BUTTON' },
  },
  frameDocument: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><p>frame</p>');
      const doc = (await page.locator(':root').evaluateAll(fn, null)) as { href: string; ready: boolean } | null;
      return doc && { sameUrl: doc.href === page.url(), ready: doc.ready };
    },
    expected: { sameUrl: true, ready: true },
  },
  prepareKeystrokes: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><input id="i" value="ab">');
      return page.locator('#i').evaluateAll(fn, 'abc');
    },
    expected: { how: 'type', text: 'c' },
  },
  scrollToPoint: {
    async run({ fn, open }) {
      const page = await open(TALL_PAGE);
      const scrolled = await page.locator(':root').evaluateAll(fn, JSON.stringify({ x: 0, y: 500, page: true }));
      return [scrolled, await page.evaluate('window.scrollY')];
    },
    expected: [true, 500],
  },
  expressionIsTruthy: {
    async run({ fn, open }) {
      const page = await open('<!doctype html><p>x</p>');
      return page.locator(':root').evaluateAll(fn, 'document.querySelector("p").textContent === "x"');
    },
    expected: true,
  },
};
