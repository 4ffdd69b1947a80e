/**
 * The wait before the next attempt, or null to give up. `attemptsMade` counts every attempt so
 * far including the first, so `delaysMs` of length n allows 1 + n attempts in all; a delivery
 * whose call returns null is marked failed. (A redelivery counts its own series from 1 again.)
 */
export function nextRetryDelayMs(attemptsMade: number, delaysMs: readonly number[]): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be a whole number >= 1, got ${attemptsMade}`);
  }
  return delaysMs[attemptsMade - 1] ?? null;
}

/**
 * The delay before the next attempt of the series: the schedule's, or, when the receiver said
 * `Retry-After` (429/503), the receiver's, capped by the schedule's longest delay (contract part
 * 2), so no receiver can park a delivery longer than the operator's own schedule would: with
 * delays of seconds, a `Retry-After: 60` waits seconds. Null when the schedule has no attempt
 * left: `Retry-After` never adds attempts.
 */
export function retryDelayMs(
  attemptInSeries: number,
  delaysMs: readonly number[],
  retryAfterMs: number | null,
): number | null {
  const scheduled = nextRetryDelayMs(attemptInSeries, delaysMs);
  if (scheduled === null || retryAfterMs === null) return scheduled;
  return Math.min(Math.max(0, retryAfterMs), Math.max(...delaysMs));
}

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
