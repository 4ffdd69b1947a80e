/*
 * How a step's selector is named in text people read: the runner's step descriptions and failure
 * messages (`Step 3 (click "aria/Show more" (+3 alternatives)) failed: …`) and the console's step
 * lines. Browser-safe (no imports, not even zod's): the console reaches it through
 * '@botfleet/core/browser'. The parameter is the shape of ElementSelector (element-selector.ts)
 * written out, so the API's generated Step type fits it as well as core's own.
 */

/** A selector as steps hold it: one selector, or alternatives, each a selector or a chain of them. */
export type SelectorWords = string | readonly (string | readonly string[])[];

/**
 * `"aria/Buy" (+2 alternatives)`: the first alternative quoted (a chain joined with ` >> `), with a
 * count of the others after the quotes (the count is not part of any selector): the rest is noise
 * on one line.
 */
export function describeSelector(selector: SelectorWords): string {
  if (typeof selector === 'string') return `"${selector}"`;
  const [first, ...others] = selector;
  const label = `"${first === undefined ? '' : typeof first === 'string' ? first : first.join(' >> ')}"`;
  return others.length === 0 ? label : `${label} (+${others.length} alternative${others.length > 1 ? 's' : ''})`;
}
