/**
 * Helper functions a generated script may need, emitted after the default export (function
 * declarations are hoisted). `readAll` and `readRecords` run in the web page (passed to
 * page.$$eval), so they must not use anything from the script's scope. They mirror the step
 * interpreter's extract.ts, so generated scripts extract the same data as the steps.
 */
export const SCRIPT_HELPERS = {
  text: `// Fills a {{params.x}} placeholder: a missing or null param becomes '' (as when steps run).
function text(value) {
  return value === undefined || value === null ? '' : String(value);
}`,

  readAll: `// Runs in the page: one value per match, its trimmed text or the attribute.
function readAll(elements, attribute) {
  return elements.map((el) => (attribute ? el.getAttribute(attribute) : (el.textContent ?? '').trim()));
}`,

  readRecords: `// Runs in the page: one object per match, each field read from the first element matching its
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

  extractRecords: `// One object per match of selector (see readRecords). Fields in Playwright-only selector syntax
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
} as const;

export type ScriptHelper = keyof typeof SCRIPT_HELPERS;

/** Helpers that others call. */
export const HELPER_NEEDS: Readonly<Partial<Record<ScriptHelper, readonly ScriptHelper[]>>> = {
  extractRecords: ['readRecords', 'readAll'],
};
