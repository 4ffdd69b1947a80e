import { TimestampSchema, WebhookAuthSchema } from '@botfleet/core';
import { z } from 'zod';

export const DeliveryAttemptSchema = z.object({
  number: z.number().int().describe('1 for the first attempt'),
  startedAt: TimestampSchema,
  durationMs: z.number().int(),
  statusCode: z.number().int().nullable().describe('The receiver’s HTTP status; null when it gave none'),
  error: z.string().nullable(),
});

export const DeliverySchema = z.object({
  id: z.string().describe('Also sent as the `webhook-id` header, the same on every retry'),
  status: z.enum(['pending', 'succeeded', 'failed']),
  url: z.string(),
  auth: WebhookAuthSchema,
  attemptCount: z.number().int(),
  nextAttemptAt: TimestampSchema.nullable().describe('When the next attempt is due; null once final'),
  lastError: z.string().nullable(),
  createdAt: TimestampSchema,
  completedAt: TimestampSchema.nullable(),
  attempts: z.array(DeliveryAttemptSchema),
});
export type DeliveryView = z.infer<typeof DeliverySchema>;
