/**
 * When a newly armed job scheduler should fire first, given the `nextRunAt` the schedule row
 * already holds:
 * - still in the future: keep it, so re-arming after a Redis flush neither fires early nor
 *   twice for a tick that already ran;
 * - in the past (missed while nothing was armed): fire once, now; missed slots are not replayed;
 * - none (just activated, or resumed after a pause): one full interval from now.
 */
export function seriesStart(nextRunAt: Date | null, intervalSeconds: number, now: Date): Date {
  if (nextRunAt === null) return new Date(now.getTime() + intervalSeconds * 1000);
  return nextRunAt.getTime() > now.getTime() ? nextRunAt : now;
}
