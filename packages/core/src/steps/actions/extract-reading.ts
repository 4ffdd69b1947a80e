import type { ScriptHelper } from '../script-writer';
import { OutputTooLargeError } from '../../output-bounds';
import { definePageFunction } from '../../page-function';
import type { BoundedRead, PageElement, PageFieldSpec, StepLocator, StepPage } from '../step-page';

/** The fields of an `extract` step that decide what it reads (templates already filled). */
export interface ExtractSpec {
  selector: string;
  attribute?: string | undefined;
  fields?: Record<string, { selector: string; attribute?: string | undefined }> | undefined;
  multiple?: boolean | undefined;
}

export type ExtractedValue = string | null | Array<string | null> | Array<Record<string, string | null>>;

/*
 * How an `extract` step reads the page, twice: in the worker (extractValue, through Playwright)
 * and in generated scripts (the helpers below, through the sandbox's page facade). They must
 * extract the same data, so they sit side by side.
 */

/** What a read inside the page answers: the value, or how far it got past the limit. */
type Bounded<T> = { value: T; over?: undefined } | { over: number };

type Row = Record<string, string | null>;

/** Runs in the page: the one match's trimmed text or attribute, within the limit. */
const readOneInPage = definePageFunction(
  'extractOneValue',
  (el: PageElement, r: BoundedRead): Bounded<string | null> => {
    const text = r.attribute ? el.getAttribute(r.attribute) : el.textContent === null ? null : el.textContent.trim();
    return text !== null && text.length + 2 > r.limit ? { over: text.length + 2 } : { value: text };
  },
);

/** Runs in the page: one value per match, measured as it is read. */
const readAllInPage = definePageFunction(
  'extractAllValues',
  (elements: PageElement[], r: BoundedRead): Bounded<Array<string | null>> => {
    const values: Array<string | null> = [];
    let size = 2;
    for (const el of elements) {
      const value = r.attribute ? el.getAttribute(r.attribute) : (el.textContent ?? '').trim();
      size += value === null ? 5 : value.length + 3;
      if (size > r.limit) return { over: size };
      values.push(value);
    }
    return { value: values };
  },
);

/**
 * Runs in the page: one object per match, each field from the first element matching its
 * selector inside the match, or null when a field selector is not plain CSS (see extractRecords).
 */
const readRecordsInPage = definePageFunction(
  'extractRecordFields',
  (elements: PageElement[], r: BoundedRead): Bounded<Row[]> | null => {
    const fieldSpecs = r.fields ?? [];
    try {
      for (const f of fieldSpecs) document.createDocumentFragment().querySelector(f.selector);
    } catch {
      return null; // Not CSS: let Playwright's selector engine handle it.
    }
    // The light DOM first, then open shadow roots (the match's own, then its descendants').
    const firstDeepMatch = (el: Element, selector: string): Element | null => {
      const roots: Array<Element | ShadowRoot> = [el];
      while (roots.length > 0) {
        const root = roots.shift()!;
        const found = root.querySelector(selector);
        if (found) return found;
        const hosts = Array.from(root.querySelectorAll('*'));
        if (root instanceof Element) hosts.unshift(root);
        for (const host of hosts) if (host.shadowRoot) roots.push(host.shadowRoot);
      }
      return null;
    };
    const rows: Row[] = [];
    let size = 2;
    for (const el of elements) {
      const row: Row = {};
      for (const f of fieldSpecs) {
        const target = firstDeepMatch(el, f.selector);
        const value = !target
          ? null
          : f.attribute
            ? target.getAttribute(f.attribute)
            : (target.textContent ?? '').trim();
        row[f.name] = value;
        size += f.name.length + (value === null ? 8 : value.length + 6);
      }
      size += 3;
      if (size > r.limit) return { over: size };
      rows.push(row);
    }
    return { value: rows };
  },
);

/**
 * Reads an `extract` step (semantics in extract.ts). A single value waits (up to the timeout)
 * for its element, so a missing one fails the step; a list does not wait: zero matches is a
 * valid, empty list. Everything is measured inside the page against `maxBytes` (the step's
 * output bound) before it is sent: an extract of `body` on a 50 MB page fails with
 * output_too_large without the worker ever holding the 50 MB.
 */
export async function extractValue(
  page: StepPage,
  spec: ExtractSpec,
  timeoutMs: number,
  maxBytes: number = Number.POSITIVE_INFINITY,
): Promise<ExtractedValue> {
  const limit = Number.isFinite(maxBytes) ? Math.max(0, Math.floor(maxBytes)) : Number.MAX_SAFE_INTEGER;
  const matches = page.locator(spec.selector);
  if (spec.multiple && spec.fields) return extractRecords(matches, spec.fields, limit);
  if (spec.multiple) return within(await readAll(matches, spec.attribute ?? null, limit), limit);
  const read: BoundedRead = { attribute: spec.attribute ?? null, fields: null, limit };
  // `evaluate` waits for the element as textContent/getAttribute would.
  const one = await matches.first().evaluate(readOneInPage, read, { timeout: timeoutMs });
  return within(one, limit);
}

function within<T>(result: Bounded<T>, limit: number): T {
  if (result.over === undefined) return result.value;
  throw new OutputTooLargeError(
    null,
    `the value read from the page is more than ${result.over - 1} characters, over the ${limit} bytes this step may output (MAX_STEP_OUTPUT_BYTES, or what is left of MAX_EXECUTION_OUTPUT_BYTES)`,
  );
}

/** One value per match in a single round trip to the page, measured there (see BoundedRead). */
function readAll(
  locator: StepLocator,
  attribute: string | null,
  limit: number,
): Promise<Bounded<Array<string | null>>> {
  return locator.evaluateAll(readAllInPage, { attribute, fields: null, limit });
}

/**
 * One object per match; each field is the first element matching its selector inside the match
 * (null when there is none). Plain CSS field selectors (the usual case) are read for all rows in
 * one round trip, piercing open shadow roots as Playwright's CSS engine does; a field using
 * Playwright-only syntax (text=, >>, :has-text()) makes the whole list go through locators,
 * one call per cell (200 rows x 3 fields: ~25 ms one way, ~2.5 s the other). Either way the rows
 * are measured against `limit` as they are read.
 */
async function extractRecords(
  matches: StepLocator,
  fields: Record<string, { selector: string; attribute?: string | undefined }>,
  limit: number,
): Promise<Row[]> {
  const specs: PageFieldSpec[] = Object.entries(fields).map(([name, f]) => ({
    name,
    selector: f.selector,
    attribute: f.attribute ?? null,
  }));
  const fast = await matches.evaluateAll(readRecordsInPage, { attribute: null, fields: specs, limit });
  if (fast) return within(fast, limit);

  const count = await matches.count();
  let size = 2;
  const measured = (value: string | null) => {
    size += value === null ? 8 : value.length + 6;
    if (size > limit) within({ over: size }, limit);
    return value;
  };
  // Issued together so Playwright pipelines them rather than waiting on each in turn.
  const rows = Array.from({ length: count }, (_unused, i) =>
    Promise.all(
      specs.map(async (f) => {
        const cell = within(await readAll(matches.nth(i).locator(f.selector).first(), f.attribute, limit), limit);
        return [f.name, measured(cell[0] ?? null)] as const;
      }),
    ),
  );
  return (await Promise.all(rows)).map((pairs) => Object.fromEntries(pairs));
}

/*
 * The generated script's counterparts. `readAll` and `readRecords` run in the web page (passed
 * to page.$$eval), so they must not use anything from the script's scope.
 */

export const READ_ALL_HELPER: ScriptHelper = {
  name: 'readAll',
  source: `// Runs in the page: one value per match, its trimmed text or the attribute.
function readAll(elements, attribute) {
  return elements.map((el) => (attribute ? el.getAttribute(attribute) : (el.textContent ?? '').trim()));
}`,
};

const READ_RECORDS_HELPER: ScriptHelper = {
  name: 'readRecords',
  source: `// Runs in the page: one object per match, each field read from the first element matching its
// selector inside the match (null when there is none), looking into open shadow roots as
// Playwright's CSS engine does. Returns null when a field selector is not plain CSS.
function readRecords(elements, fields) {
  const deepQuery = (root, selector) => {
    const direct = root.querySelector(selector);
    if (direct) return direct;
    const hosts = Array.from(root.querySelectorAll('*'));
    if (root instanceof Element) hosts.unshift(root);
    for (const el of hosts) {
      const found = el.shadowRoot ? deepQuery(el.shadowRoot, selector) : null;
      if (found) return found;
    }
    return null;
  };
  try {
    for (const field of Object.values(fields)) document.createDocumentFragment().querySelector(field.selector);
  } catch {
    return null;
  }
  return elements.map((el) => {
    const record = {};
    for (const [name, field] of Object.entries(fields)) {
      const target = deepQuery(el, field.selector);
      record[name] = !target ? null : field.attribute ? target.getAttribute(field.attribute) : (target.textContent ?? '').trim();
    }
    return record;
  });
}`,
};

export const EXTRACT_RECORDS_HELPER: ScriptHelper = {
  name: 'extractRecords',
  source: `// One object per match of selector (see readRecords). Fields in Playwright-only selector syntax
// (text=, >>, :has-text()) are read one cell at a time through Playwright instead.
async function extractRecords(page, selector, fields) {
  const records = await page.$$eval(selector, readRecords, fields);
  if (records !== null) return records;
  const count = await page.$$eval(selector, (elements) => elements.length);
  const slow = [];
  for (let i = 0; i < count; i++) {
    const record = {};
    for (const [name, field] of Object.entries(fields)) {
      const cell = selector + ' >> nth=' + i + ' >> ' + field.selector + ' >> nth=0';
      const [value] = await page.$$eval(cell, readAll, field.attribute);
      record[name] = value ?? null;
    }
    slow.push(record);
  }
  return slow;
}`,
  needs: [READ_ALL_HELPER, READ_RECORDS_HELPER],
};
