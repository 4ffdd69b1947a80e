import { createHash } from 'node:crypto';

/**
 * The value as canonical JSON: object keys sorted, strings trimmed with runs of whitespace
 * collapsed to one space. Two extractions of the same content then compare equal even when the
 * page reordered a record's keys or reflowed its text; any other difference is a change.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.replace(/\s+/g, ' ').trim());
  if (typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const entries = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${entries.join(',')}}`;
}

/** SHA-256 (hex) of the canonical JSON: what change detection compares between runs. */
export function stableDataHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex');
}
