/*
 * The selector engine that finds where a page shows a secret value of the run, for screenshot
 * masks (RunSecrets.masksOn): `botfleet_secret_text=<base64 of a JSON array of values>` matches,
 * in the document or open shadow root it runs in,
 *   - the smallest elements whose text contains a value (so `<p>pw=<b>sec</b>ret</p>` masks the
 *     <p>, and a value in one <span> masks only that span),
 *   - inputs and textareas whose current value contains one (typed or set by script),
 *   - elements with an attribute containing one (a `value`, `placeholder` or `title`, or a
 *     `data-*` a stylesheet shows with `content: attr(...)`).
 * The values are base64 so no character of a secret can end the selector (` >> `, quotes).
 *
 * It runs as a content script (an isolated world), like the child-frame engine: the page cannot
 * redefine textContent or getAttribute under it, and Playwright resolves mask selectors at the
 * moment it paints the masks, so an element the page fills just before the screenshot is found.
 * Plain source text: it runs in the browser, where a loader's rewrites (tsx's keepNames adds
 * `__name` calls to named functions) would not exist.
 */
export const SECRET_TEXT_ENGINE = 'botfleet_secret_text';

export const SECRET_TEXT_ENGINE_SOURCE = `({
  queryAll(root, body) {
    let values;
    try {
      const bytes = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
      values = JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      return [];
    }
    if (!Array.isArray(values)) return [];
    values = values.filter((v) => typeof v === 'string' && v.length > 0);
    if (values.length === 0) return [];
    const holds = (text) => typeof text === 'string' && values.some((v) => text.includes(v));
    const found = new Set();
    const scopes = [root];
    const elements = [];
    for (let i = 0; i < scopes.length; i++) {
      for (const el of scopes[i].querySelectorAll('*')) {
        elements.push(el);
        if (el.shadowRoot) scopes.push(el.shadowRoot);
      }
    }
    for (const el of elements) {
      if ((el.localName === 'input' || el.localName === 'textarea') && holds(el.value)) found.add(el);
      for (const attr of el.attributes) if (holds(attr.value)) found.add(el);
    }
    // Down from each scope along the elements whose text holds a value, to the smallest ones.
    for (const value of values) {
      const pending = [];
      for (const scope of scopes) for (const child of scope.children) pending.push(child);
      while (pending.length > 0) {
        const el = pending.pop();
        const text = el.textContent;
        if (typeof text !== 'string' || !text.includes(value)) continue;
        const inner = Array.from(el.children).filter((child) => (child.textContent || '').includes(value));
        if (inner.length === 0) found.add(el);
        else for (const child of inner) pending.push(child);
      }
    }
    return Array.from(found);
  },
  query(root, body) {
    return this.queryAll(root, body)[0] || null;
  },
})`;

/** The selector of every element showing one of `values` (see above). */
export function secretTextSelector(values: readonly string[]): string {
  return `${SECRET_TEXT_ENGINE}=${Buffer.from(JSON.stringify(values)).toString('base64')}`;
}
