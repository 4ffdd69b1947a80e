import type { ScheduleView } from '@botfleet/core';
import type { Bot, Schedule } from '@botfleet/db';
import { ms } from './time';

/** A paused bot's schedule does not fire, so it has no next run even while `active` is kept. */
export function toScheduleView(schedule: Schedule | null, bot: Pick<Bot, 'status'>): ScheduleView {
  if (!schedule) return { interval: null, active: false, nextRunAt: null, lastRunAt: null };
  const fires = schedule.active && bot.status === 'active';
  return {
    interval: schedule.intervalSeconds,
    active: schedule.active,
    nextRunAt: fires ? ms(schedule.nextRunAt) : null,
    lastRunAt: ms(schedule.lastRunAt),
  };
}
