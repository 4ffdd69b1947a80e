import { z } from 'zod';
import { BotDetailSchema, CreateBotSchema } from '../schemas/bot';
import { RecordingSchema, RecordingWarningSchema } from './recording-schema';

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
