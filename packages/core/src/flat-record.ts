/*
 * A record read as flat cells, the way a results export writes CSV (docs/results-export.md):
 * nested objects by key and arrays by index, the names joined with dots (`products.0.name`), and
 * each leaf as the text of its cell. The API's CSV export and the console's data table both read
 * records this way, so a column of the table is a column of the download. Browser-safe (no
 * imports): the console reaches it through '@botfleet/core/browser'.
 */

/** A JSON object: not null, not an array. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Walks a value's leaves with their dotted names: nested objects by key, arrays by index
 * (`products.0.name`). An empty object or array has no leaves, so it adds no column.
 */
export function flattenInto(value: unknown, prefix: string, visit: (name: string, leaf: unknown) => void): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => flattenInto(item, `${prefix}.${index}`, visit));
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) flattenInto(value[key], prefix === '' ? key : `${prefix}.${key}`, visit);
  } else {
    visit(prefix, value);
  }
}

/** A record's leaves by their dotted names, in the order flattenInto walks them. */
export function flattenRecord(record: Record<string, unknown>): Map<string, unknown> {
  const flat = new Map<string, unknown>();
  flattenInto(record, '', (name, leaf) => flat.set(name, leaf));
  return flat;
}

/**
 * One cell's text: a string as it is, a number or boolean as JSON writes it, null and an absent
 * value empty. A named field holding an object or array (`fields=products`) is written as its JSON.
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
