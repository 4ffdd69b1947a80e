import { z } from 'zod';
import { HttpUrlSchema, TimestampSchema } from './common';

export const BotKindSchema = z.enum(['extraction', 'action']);
export const BotStatusSchema = z.enum(['active', 'paused']);
const TagsSchema = z.array(z.string().min(1).max(64)).max(50);

export const CreateBotSchema = z.strictObject({
  name: z.string().min(1).max(200),
  targetUrl: HttpUrlSchema,
  description: z.string().max(2000).optional(),
  kind: BotKindSchema.default('extraction'),
  tags: TagsSchema.default([]),
});
export type CreateBotInput = z.infer<typeof CreateBotSchema>;

export const UpdateBotSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  targetUrl: HttpUrlSchema.optional(),
  description: z.string().max(2000).nullable().optional(),
  tags: TagsSchema.optional(),
  status: BotStatusSchema.optional(),
});
export type UpdateBotInput = z.infer<typeof UpdateBotSchema>;

export const BotSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  targetUrl: z.string(),
  kind: BotKindSchema,
  status: BotStatusSchema,
  tags: z.array(z.string()),
  createdAt: TimestampSchema,
});
export type BotSummary = z.infer<typeof BotSummarySchema>;

export const BotDetailSchema = BotSummarySchema.extend({
  description: z.string().nullable(),
  updatedAt: TimestampSchema,
});
export type BotDetail = z.infer<typeof BotDetailSchema>;
