import { nextRunAfter, type ScheduleSpec } from '@botfleet/core';
import type { ArmedSchedule, ArmInput } from '@botfleet/queue';

/*
 * The decisions behind arming a schedule, pure so they are tested without Redis: which slot a
 * newly armed job scheduler fires first, and whether the one already armed fires on the right
 * timing. The schedule commands (schedules.ts) apply them through the queue's job schedulers.
 */

/** How to arm a schedule, and the slot it should fire first (null: a cron that never fires again). */
export interface ArmPlan {
  input: ArmInput;
  first: Date | null;
}

/**
 * When a newly armed interval series should fire first, given the `nextRunAt` the schedule row
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

/**
 * Arms a schedule from its row's `nextRunAt`, the same way for a PUT and for the reconciler:
 * - a planned slot still ahead is kept (an interval starts its series there; a cron's next
 *   occurrence is that slot), so re-arming neither fires early nor twice;
 * - a slot in the past was missed while nothing was armed: one run fires now and the missed
 *   ones are not replayed, then the schedule goes on;
 * - none (just activated, resumed, or the timing changed): the first interval or occurrence after now.
 */
export function armPlan(botId: string, spec: ScheduleSpec, nextRunAt: Date | null, now: Date): ArmPlan {
  if (spec.kind === 'interval') {
    const startAt = seriesStart(nextRunAt, spec.intervalSeconds, now);
    return { input: { botId, intervalSeconds: spec.intervalSeconds, startAt }, first: startAt };
  }
  const missed = nextRunAt !== null && nextRunAt.getTime() <= now.getTime();
  return {
    input: { botId, cron: spec.cron, timezone: spec.timezone, fireNow: missed },
    first: missed ? now : nextRunAfter(spec, now),
  };
}

/** Whether the job scheduler armed in Redis already fires on this spec. */
export function armedMatches(armed: Pick<ArmedSchedule, 'everyMs' | 'pattern' | 'tz'>, spec: ScheduleSpec): boolean {
  if (spec.kind === 'interval') return armed.everyMs === spec.intervalSeconds * 1000;
  return armed.pattern === spec.cron && (armed.tz ?? 'UTC') === spec.timezone;
}
