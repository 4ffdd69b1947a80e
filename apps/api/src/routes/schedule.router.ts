import { PutScheduleSchema, ScheduleSchema, type ScheduleView } from '@botfleet/core';
import { findSchedule, type Bot, type Schedule } from '@botfleet/db';
import { applySchedule } from '../services/apply-schedule';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { requireBot } from '../services/find-bot';
import { ms } from '../views/time';
import { BotParams } from './path-params';

const SCHEDULE_DESCRIPTION =
  'The schedule; `interval` in seconds (null and `active: false` when never set). `nextRunAt` is when the next ' +
  'scheduled execution is created (null while inactive or while the bot is paused); `lastRunAt` when the latest was.';

/** A paused bot's schedule does not fire, so it has no next run even while `active` is kept. */
function toScheduleView(schedule: Schedule | null, bot: Pick<Bot, 'status'>): ScheduleView {
  if (!schedule) return { interval: null, active: false, nextRunAt: null, lastRunAt: null };
  const fires = schedule.active && bot.status === 'active';
  return {
    interval: schedule.intervalSeconds,
    active: schedule.active,
    nextRunAt: fires ? ms(schedule.nextRunAt) : null,
    lastRunAt: ms(schedule.lastRunAt),
  };
}

export function scheduleRoutes(deps: ApiDeps): Route[] {
  const { db, settings } = deps;
  // The minimum is configuration (MIN_SCHEDULE_INTERVAL_SECONDS), so the body schema is built here.
  const min = settings.minScheduleIntervalSeconds;
  const PutBody = PutScheduleSchema.extend({
    interval: PutScheduleSchema.shape.interval.min(min, `must be at least ${min} seconds`),
  });

  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/schedule',
        tag: 'Schedule',
        summary: 'Get the bot’s schedule',
        permission: 'read',
        params: BotParams,
        responses: { 200: { description: SCHEDULE_DESCRIPTION, schema: ScheduleSchema } },
      },
      async ({ auth, params }) => {
        const bot = await requireBot(db, auth.organizationId, params.botId);
        return { status: 200, body: toScheduleView(await findSchedule(db, bot.id), bot) };
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/bots/:botId/schedule',
        tag: 'Schedule',
        summary: `Set the bot’s schedule; runs are executions with trigger "schedule" (interval at least ${min} s)`,
        permission: 'write',
        params: BotParams,
        body: PutBody,
        responses: { 200: { description: SCHEDULE_DESCRIPTION, schema: ScheduleSchema } },
      },
      async ({ auth, params, body }) => {
        const bot = await requireBot(db, auth.organizationId, params.botId);
        const schedule = await applySchedule(deps, bot, { intervalSeconds: body.interval, active: body.active });
        return { status: 200, body: toScheduleView(schedule, bot) };
      },
    ),
  ];
}
