import {
  BotKindSchema,
  BotStatusSchema,
  CreateBotSchema,
  RecordingSchema,
  RecordingWarningSchema,
  RetryPolicySchema,
  TimestampSchema,
} from '@botfleet/core';
import { z } from 'zod';

/*
 * The bot's own fields (CreateBotSchema, UpdateBotSchema) are core's: the repositories take their
 * shapes. This file holds what only the API says about bots.
 */

export const BotSummarySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    targetUrl: z.string(),
    kind: BotKindSchema,
    status: BotStatusSchema,
    tags: z.array(z.string()),
    createdAt: TimestampSchema,
  })
  .meta({ id: 'BotSummary' });
export type BotSummary = z.infer<typeof BotSummarySchema>;

export const BotDetailSchema = BotSummarySchema.extend({
  description: z.string().nullable(),
  retry: RetryPolicySchema,
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
      description: null,
      retry: { attempts: 0, delaySeconds: 0 },
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
