import { z } from 'zod';
import { HttpUrlSchema } from './common';

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

/** Bot failures retried within the same execution (infrastructure failures are retried regardless). */
export const RetryPolicySchema = z
  .strictObject({
    attempts: z.number().int().min(0).max(5).describe('Tries after the first: 2 allows three tries'),
    delaySeconds: z.number().int().min(0).max(3600).default(0).describe('Pause before each retry'),
  })
  .describe('Retry policy for bot failures (default: no retries)');
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;

export const UpdateBotSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  targetUrl: HttpUrlSchema.optional(),
  description: z.string().max(2000).nullable().optional(),
  tags: TagsSchema.optional(),
  status: BotStatusSchema.optional(),
  retry: RetryPolicySchema.optional(),
});
export type UpdateBotInput = z.infer<typeof UpdateBotSchema>;
