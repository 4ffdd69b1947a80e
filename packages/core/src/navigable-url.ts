import { z } from 'zod';
import { fillTemplate, placeholderNames } from './templating';

/*
 * What a run's browser may open: the one check for every URL that enters botfleet (the step
 * schema, the recording importer, trigger params that end up in a URL) and for every URL a run
 * opens (the target URL, `goto` steps, a script's `page.goto`, and so the generated script).
 * Only web documents: `file:` would read the worker's disk, `chrome:` and `view-source:` its
 * internals, and `data:`, `javascript:` and `blob:` run content no site served.
 */

/** The code a refused URL's error starts with, in step outputs and the run's failure. */
export const URL_NOT_ALLOWED = 'url_not_allowed';

const WEB_SCHEMES = new Set(['http:', 'https:']);
const ABOUT_BLANK = 'about:blank';
const MAX_QUOTED_URL = 200;

/** `url` for a message or a log line: cut to a length that names it without flooding the log. */
export function quoteUrl(url: string): string {
  return url.length > MAX_QUOTED_URL ? `${url.slice(0, MAX_QUOTED_URL)}…` : url;
}

export type UrlVerdict = { allowed: true; url: string } | { allowed: false; reason: string };

/**
 * Judges a URL a run is about to open: an absolute http(s) URL, `about:blank` when
 * `allowAboutBlank`, or a relative one resolved against `base` (the current page, as a link
 * would). Parsing is the WHATWG parser the browser uses, so spellings such as ` FILE:`,
 * `jav\tascript:` or `view-source:http://...` are judged by the scheme the browser would see.
 */
export function judgeNavigableUrl(raw: string, options: { base?: string; allowAboutBlank?: boolean } = {}): UrlVerdict {
  let url: URL;
  try {
    url = options.base === undefined ? new URL(raw) : new URL(raw, options.base);
  } catch {
    return { allowed: false, reason: `'${quoteUrl(raw)}' is not a valid absolute URL` };
  }
  if (WEB_SCHEMES.has(url.protocol)) return { allowed: true, url: url.href };
  if (options.allowAboutBlank && url.href === ABOUT_BLANK) return { allowed: true, url: url.href };
  return { allowed: false, reason: `${url.protocol} URLs cannot be opened, only http(s) (${quoteUrl(url.href)})` };
}

/** A URL a run refused to open; its message starts with `url_not_allowed`. */
export class UrlNotAllowedError extends Error {
  override readonly name = 'UrlNotAllowedError';
  constructor(reason: string) {
    super(`${URL_NOT_ALLOWED}: ${reason}`);
  }
}

/** judgeNavigableUrl for run time: the URL to open, or a UrlNotAllowedError. */
export function navigableUrl(raw: string, options: { base?: string; allowAboutBlank?: boolean } = {}): string {
  const verdict = judgeNavigableUrl(raw, options);
  if (!verdict.allowed) throw new UrlNotAllowedError(verdict.reason);
  return verdict.url;
}

/**
 * Documents a frame may show besides web pages: the empty and `srcdoc` documents frames start
 * with, a frame that never loaded (''), and Chromium's own error page, which replaces a load that
 * failed (a refused address, a closed port) and which no page can open itself.
 */
const BUILT_IN_DOCUMENTS = new Set([ABOUT_BLANK, 'about:srcdoc', '', 'chrome-error://chromewebdata/']);

/**
 * A document a frame or popup of a run may show: web pages and the built-in documents above. The
 * navigation guard stops everything else, whoever started it.
 */
export function isAllowedDocumentUrl(url: string): boolean {
  if (BUILT_IN_DOCUMENTS.has(url)) return true;
  try {
    return WEB_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** `file:`, `data:`... of a URL for a log line; '(invalid URL)' when it does not parse. */
export function schemeOf(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A scheme as the WHATWG parser finds one: after leading C0 controls and spaces (which it strips),
 * with tabs and newlines anywhere ignored (`jav\tascript:`).
 */
const SCHEME_PREFIX = /^[\p{Cc} ]*[A-Za-z][A-Za-z0-9+.\-\t\n\r]*:/u;

/**
 * The write-time rule for a step's URL, which may hold `{{params.x}}` placeholders and may be
 * relative. Absolute: judged as at run time (about:blank allowed). Relative: allowed, since it
 * resolves against the page the run is on, which is a web page or about:blank. Templated: the
 * text before the first placeholder is judged when it already names a scheme (`file:///{{...}}`);
 * a placeholder in the scheme itself is judged at trigger time, once params are known
 * (urlTemplateProblems), and again at run time.
 */
export function writableUrlProblem(raw: string): string | null {
  const firstPlaceholder = raw.search(/\{\{/);
  if (firstPlaceholder >= 0 && placeholderNames(raw).length > 0) {
    const literal = raw.slice(0, firstPlaceholder);
    const scheme = SCHEME_PREFIX.exec(literal);
    if (!scheme) return null;
    // `http://{{params.host}}/` judges `http://x/`: only the scheme matters here.
    const verdict = judgeNavigableUrl(`${scheme[0]}//x/`, { allowAboutBlank: false });
    return verdict.allowed ? null : verdict.reason;
  }
  if (!SCHEME_PREFIX.test(raw)) return null; // relative: no scheme of its own
  const verdict = judgeNavigableUrl(raw, { allowAboutBlank: true });
  return verdict.allowed ? null : verdict.reason;
}

/** A step URL as written: the write-time rule, with the `url_not_allowed` code in its message. */
export const NavigableUrlSchema = z
  .string()
  .min(1)
  .max(2048)
  .superRefine((value, ctx) => {
    const problem = writableUrlProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: `${URL_NOT_ALLOWED}: ${problem}` });
  })
  .describe('An http(s) URL, a URL relative to the current page, or about:blank; may use {{params.<name>}}');

/** A trigger param that makes a templated step URL open something other than a web page. */
export interface UrlTemplateProblem {
  path: string;
  message: string;
}

/**
 * Trigger time: the step URLs that hold placeholders, filled with the params, judged as the run
 * will judge them (a relative result is fine: it stays on the web page it resolves against).
 * Each problem names the params the URL uses, as `params.<name>`.
 */
export function urlTemplateProblems(
  templates: readonly string[],
  params: Record<string, unknown>,
): UrlTemplateProblem[] {
  const problems: UrlTemplateProblem[] = [];
  for (const template of templates) {
    const names = placeholderNames(template);
    if (names.length === 0) continue;
    const problem = writableUrlProblem(fillTemplate(template, params));
    if (problem === null) continue;
    for (const name of new Set(names)) {
      problems.push({ path: `params.${name}`, message: `makes a goto URL unsafe: ${URL_NOT_ALLOWED}: ${problem}` });
    }
  }
  return problems;
}
