import { nextRunAfter, type ScheduleSpec } from '@botfleet/core';
import type { ArmInput } from './job-schedulers';
import { seriesStart } from './series-start';

/** How to arm a schedule, and the slot it should fire first (null: a cron that never fires again). */
export interface ArmPlan {
  input: ArmInput;
  first: Date | null;
}

/**
 * Arms a schedule from its row's `nextRunAt`, the same way for the API and the reconciler:
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
export function armedMatches(
  armed: { everyMs: number | null; pattern: string | null; tz: string | null },
  spec: ScheduleSpec,
): boolean {
  if (spec.kind === 'interval') return armed.everyMs === spec.intervalSeconds * 1000;
  return armed.pattern === spec.cron && (armed.tz ?? 'UTC') === spec.timezone;
}
