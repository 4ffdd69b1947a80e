import {
  BOT_SORTS,
  BotKindSchema,
  BotStatusSchema,
  CreateBotSchema,
  DEFAULT_BOT_SORT,
  parseBotListCursor,
  RecordingSchema,
  RecordingWarningSchema,
  RetryPolicySchema,
  TimestampSchema,
} from '@botfleet/core';
import { z } from 'zod';
import { PaginationQuerySchema } from './common.contract';
import { ExecutionStatusSchema } from './executions.contract';

/*
 * The bot's own fields (CreateBotSchema, UpdateBotSchema) are core's: the repositories take their
 * shapes. This file holds what only the API says about bots.
 */

export const BotLastExecutionSchema = z
  .object({
    id: z.string(),
    status: ExecutionStatusSchema,
    createdAt: TimestampSchema,
    completedAt: TimestampSchema.nullable(),
  })
  .meta({ id: 'BotLastExecution' });

/** The schedule as a list shows it; GET /bots/:botId/schedule has the rest (overlap, params, next runs). */
export const BotScheduleSummarySchema = z
  .object({
    active: z.boolean(),
    interval: z.number().int().nullable().describe('Seconds between runs; null for a cron schedule'),
    cron: z.string().nullable(),
    timezone: z.string().describe('IANA zone the cron is read in'),
    nextRunAt: TimestampSchema.nullable().describe(
      'Null while the schedule does not fire (inactive, or the bot paused)',
    ),
  })
  .meta({ id: 'BotScheduleSummary' });

export const BotSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    targetUrl: z.string(),
    kind: BotKindSchema,
    status: BotStatusSchema,
    tags: z.array(z.string()),
    createdAt: TimestampSchema,
    lastRunAt: TimestampSchema.nullable().describe(
      'When the bot last ran (its newest run’s createdAt); kept when retention deletes that run; null until it runs',
    ),
    lastExecution: BotLastExecutionSchema.nullable().describe('The newest of the bot’s runs still kept'),
    schedule: BotScheduleSummarySchema.nullable().describe('Null when the bot has no schedule'),
  })
  .meta({ id: 'BotSummary' });
export type BotSummary = z.infer<typeof BotSummarySchema>;

export const BotDetailSchema = BotSummarySchema.extend({
  description: z.string().nullable(),
  retry: RetryPolicySchema,
  version: z
    .number()
    .int()
    .min(1)
    .describe('The current version of the steps, scripts and manifest (GET /bots/:botId/versions); new runs run it'),
  updatedAt: TimestampSchema,
}).meta({
  id: 'Bot',
  examples: [
    {
      id: 'bot_2x4Jf8kQ1mZ7',
      name: 'Price watcher',
      targetUrl: 'https://shop.example/item/42',
      kind: 'extraction',
      status: 'active',
      tags: ['prices'],
      createdAt: 1767225600000,
      lastRunAt: 1767312000000,
      lastExecution: {
        id: 'exe_7Hq2Lw9vB3cN',
        status: 'completed',
        createdAt: 1767312000000,
        completedAt: 1767312003150,
      },
      schedule: { active: true, interval: null, cron: '0 9 * * *', timezone: 'Europe/Paris', nextRunAt: 1767340800000 },
      description: null,
      retry: { attempts: 0, delaySeconds: 0 },
      version: 1,
      updatedAt: 1767225600000,
    },
  ],
});
export type BotDetail = z.infer<typeof BotDetailSchema>;

/**
 * POST /bots: a bot as always, or one made from a Chrome Recorder `recording`, whose `name`
 * defaults to the recording's title and `targetUrl` to its first navigate URL.
 */
export const CreateBotRequestSchema = CreateBotSchema.extend({
  name: CreateBotSchema.shape.name.optional().describe('Required unless a recording gives its title'),
  targetUrl: CreateBotSchema.shape.targetUrl
    .optional()
    .describe('Required unless the recording has a navigate step, whose URL is the default'),
  recording: RecordingSchema.optional().describe('Creates the bot’s steps from this recording'),
}).superRefine((body, ctx) => {
  if (body.recording !== undefined) return;
  for (const field of ['name', 'targetUrl'] as const) {
    if (body[field] === undefined) {
      ctx.addIssue({ code: 'custom', path: [field], message: `${field} is required (unless a recording gives it)` });
    }
  }
});
export type CreateBotRequest = z.infer<typeof CreateBotRequestSchema>;

/** The created bot; `warnings` only for one made from a recording. */
export const CreatedBotSchema = BotDetailSchema.extend({
  warnings: z.array(RecordingWarningSchema).optional().describe('What the recording import skipped or changed'),
});

/** A tag to filter by: repeat the parameter for several (`?tag=a&tag=b`), one value is a list of one. */
const TagFilterSchema = z.preprocess(
  (value) => (typeof value === 'string' ? [value] : value),
  z.array(z.string().min(1).max(64)).max(50),
);

/** GET /bots: filters, sort and keyset pagination. A cursor only continues the sort it was issued for. */
export const BotListQuerySchema = z
  .strictObject({
    limit: PaginationQuerySchema.shape.limit,
    cursor: z.string().max(2048).optional().describe('nextCursor from the previous page, with the same sort'),
    q: z
      .string()
      .max(200)
      .optional()
      .describe('Only bots whose name, id or targetUrl contains this text, ignoring case (empty: no filter)'),
    tag: TagFilterSchema.optional().describe('Only bots carrying this tag; repeated, bots carrying every one'),
    status: BotStatusSchema.optional().describe('Only bots in this status'),
    sort: z
      .enum(BOT_SORTS)
      .default(DEFAULT_BOT_SORT)
      .describe(
        'Order of the list: `-createdAt` (default, newest first), `createdAt`, `name`, or `-lastRunAt` (most recently run first, bots that never ran last); ties by id',
      ),
  })
  .transform((query, ctx) => {
    if (query.cursor === undefined) return { ...query, cursor: undefined };
    const cursor = parseBotListCursor(query.cursor);
    if (!cursor) {
      ctx.addIssue({ code: 'custom', path: ['cursor'], message: 'is not a cursor returned by this API' });
      return z.NEVER;
    }
    if (cursor.sort !== query.sort) {
      ctx.addIssue({
        code: 'custom',
        path: ['cursor'],
        message: `continues sort=${cursor.sort}, not sort=${query.sort}: pass the sort of the page it came from`,
      });
      return z.NEVER;
    }
    return { ...query, cursor };
  });
export type BotListQuery = z.infer<typeof BotListQuerySchema>;
