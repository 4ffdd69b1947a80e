import { findSchedule } from '@botfleet/db';
import { applySchedule } from '@botfleet/engine';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { toScheduleView } from '../views/schedule.view';
import { BotParams } from '../contracts/path-params';
import { createPutScheduleSchema, ScheduleSchema } from '../contracts/schedule.contract';
import { botOfCaller, botToSchedule } from './resource-loaders';

const SCHEDULE_DESCRIPTION =
  'The schedule: `interval` in seconds or a `cron` read in `timezone` (both null and `active: false` when never ' +
  'set). `nextRunAt` is when the next scheduled execution is created (null while inactive or while the bot is ' +
  'paused), `nextRuns` the next five; `lastRunAt` when the latest was.';

export function scheduleRoutes(deps: ApiDeps): Route[] {
  const { db, settings } = deps;
  // The minimum is configuration (MIN_SCHEDULE_INTERVAL_SECONDS), so the body schema is built here.
  const min = settings.minScheduleIntervalSeconds;
  const PutBody = createPutScheduleSchema(min);

  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/schedule',
        operationId: 'getSchedule',
        tag: 'Schedule',
        summary: 'Get the bot’s schedule',
        permission: 'read',
        params: BotParams,
        load: { bot: botOfCaller },
        responses: { 200: { description: SCHEDULE_DESCRIPTION, schema: ScheduleSchema } },
      },
      async ({ bot }) => ({ status: 200, body: toScheduleView(await findSchedule(db, bot.id), bot) }),
    ),
    defineRoute(
      {
        method: 'put',
        path: '/bots/:botId/schedule',
        operationId: 'setSchedule',
        tag: 'Schedule',
        summary: `Set the bot’s schedule (interval or cron); runs are executions with trigger "schedule" (at least ${min} s apart)`,
        permission: 'write',
        params: BotParams,
        body: PutBody,
        load: { bot: botToSchedule },
        responses: { 200: { description: SCHEDULE_DESCRIPTION, schema: ScheduleSchema } },
      },
      async ({ bot, body }) => {
        const cron = body.cron?.trim() ?? null;
        const schedule = await applySchedule(deps, bot, {
          intervalSeconds: cron === null ? (body.interval ?? null) : null,
          cron,
          timezone: body.timezone ?? 'UTC',
          overlap: body.overlap ?? 'skip',
          params: body.params ?? {},
          active: body.active,
        });
        return { status: 200, body: toScheduleView(schedule, bot) };
      },
    ),
  ];
}
