/**
 * `Retry-After` as milliseconds from `now`: delta-seconds (`120`) or an HTTP date. Null when
 * absent or unreadable (the schedule's delay applies then).
 */
export function parseRetryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, at - now);
}
