import { cronProblem, isTimeZone, TimestampSchema } from '@botfleet/core';
import { z } from 'zod';
import { TriggerParamsSchema } from './executions.contract';

const MAX_INTERVAL_SECONDS = 366 * 24 * 3600;

const ScheduleOverlapSchema = z
  .enum(['skip', 'allow'])
  .describe('`skip` (default): no scheduled run starts while a run of the bot is pending or running');

/**
 * The PUT body: `{ interval, active }` or `{ cron, timezone?, active }`, plus `overlap` and
 * `params` on both. Setting one of interval and cron clears the other. The shortest gap between
 * runs is configuration (MIN_SCHEDULE_INTERVAL_SECONDS), so the schema is built per API.
 */
export function createPutScheduleSchema(minIntervalSeconds: number) {
  return z
    .strictObject({
      interval: z
        .number()
        .int()
        .min(minIntervalSeconds, `must be at least ${minIntervalSeconds} seconds`)
        .max(MAX_INTERVAL_SECONDS)
        .nullish()
        .describe('Seconds between runs (or give `cron`)'),
      cron: z
        .string()
        .max(200)
        .nullish()
        .describe('5 fields (6 with seconds first), e.g. "0 9 * * 1-5"; or give `interval`'),
      timezone: z.string().max(64).optional().describe('IANA zone the cron is read in; default UTC'),
      active: z.boolean(),
      overlap: ScheduleOverlapSchema.optional(),
      params: TriggerParamsSchema.optional().describe('Params of every scheduled run, checked like a trigger’s'),
    })
    .superRefine((body, ctx) => {
      const hasInterval = body.interval !== undefined && body.interval !== null;
      const hasCron = body.cron !== undefined && body.cron !== null;
      if (hasInterval && hasCron)
        ctx.addIssue({ code: 'custom', path: ['cron'], message: 'give either interval or cron, not both' });
      if (!hasInterval && !hasCron)
        ctx.addIssue({ code: 'custom', path: ['interval'], message: 'give either interval or cron' });
      const timezone = body.timezone ?? 'UTC';
      if (!isTimeZone(timezone))
        ctx.addIssue({ code: 'custom', path: ['timezone'], message: 'must be an IANA time zone, e.g. Europe/Paris' });
      if (hasCron) {
        const problem = cronProblem(body.cron!, timezone, minIntervalSeconds);
        if (problem) ctx.addIssue({ code: 'custom', path: ['cron'], message: problem });
      }
    });
}

export const ScheduleSchema = z
  .object({
    interval: z.number().int().nullable(),
    cron: z.string().nullable(),
    timezone: z.string(),
    overlap: ScheduleOverlapSchema,
    params: z.record(z.string(), z.unknown()),
    active: z.boolean(),
    nextRunAt: TimestampSchema.nullable(),
    lastRunAt: TimestampSchema.nullable(),
    nextRuns: z.array(TimestampSchema).describe('The next five runs (empty while the schedule does not fire)'),
  })
  .meta({ id: 'Schedule' });
export type ScheduleView = z.infer<typeof ScheduleSchema>;
