/**
 * The wait before the next attempt, or null to give up. `attemptsMade` counts every attempt so
 * far including the first, so `delaysMs` of length n allows 1 + n attempts in all; a delivery
 * whose call returns null is marked failed.
 */
export function nextRetryDelayMs(attemptsMade: number, delaysMs: readonly number[]): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be a whole number >= 1, got ${attemptsMade}`);
  }
  return delaysMs[attemptsMade - 1] ?? null;
}
