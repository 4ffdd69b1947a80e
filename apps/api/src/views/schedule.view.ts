import { scheduleSpecOf, upcomingRuns } from '@botfleet/core';
import type { Bot, Schedule } from '@botfleet/db';
import type { ScheduleView } from '../contracts/schedule.contract';
import { ms } from './time';

const NEXT_RUNS = 5;

/** A paused bot's schedule does not fire, so it has no next run even while `active` is kept. */
export function nextRunOf(schedule: Pick<Schedule, 'active' | 'nextRunAt'>, bot: Pick<Bot, 'status'>): Date | null {
  return schedule.active && bot.status === 'active' ? schedule.nextRunAt : null;
}

export function toScheduleView(schedule: Schedule | null, bot: Pick<Bot, 'status'>): ScheduleView {
  if (!schedule)
    return {
      interval: null,
      cron: null,
      timezone: 'UTC',
      overlap: 'skip',
      params: {},
      active: false,
      nextRunAt: null,
      lastRunAt: null,
      nextRuns: [],
    };
  const nextRunAt = nextRunOf(schedule, bot);
  return {
    interval: schedule.intervalSeconds,
    cron: schedule.cron,
    timezone: schedule.timezone,
    overlap: schedule.overlap,
    params: schedule.params as Record<string, unknown>,
    active: schedule.active,
    nextRunAt: ms(nextRunAt),
    lastRunAt: ms(schedule.lastRunAt),
    nextRuns: nextRunAt ? upcomingRuns(scheduleSpecOf(schedule), nextRunAt, NEXT_RUNS) : [],
  };
}
