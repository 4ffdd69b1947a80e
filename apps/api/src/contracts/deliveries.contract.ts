import { TimestampSchema, WebhookAuthSchema, WebhookEventSchema } from '@botfleet/core';
import { z } from 'zod';
import { PaginationQuerySchema } from './common.contract';

export const DeliveryAttemptSchema = z
  .object({
    number: z.number().int().describe('1 for the first attempt'),
    startedAt: TimestampSchema,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable().describe('The receiver’s HTTP status; null when it gave none'),
    error: z.string().nullable(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const DeliverySchema = z
  .object({
    id: z.string().describe('Also sent as the `webhook-id` header, the same on every retry and redelivery'),
    executionId: z.string(),
    event: WebhookEventSchema.describe('Sent as the `x-botfleet-event` header'),
    status: z.enum(['pending', 'succeeded', 'failed']),
    url: z.string(),
    auth: WebhookAuthSchema,
    attemptCount: z.number().int(),
    nextAttemptAt: TimestampSchema.nullable().describe('When the next attempt is due; null once final'),
    lastError: z.string().nullable(),
    createdAt: TimestampSchema,
    completedAt: TimestampSchema.nullable(),
    attempts: z.array(DeliveryAttemptSchema),
  })
  .meta({ id: 'Delivery' });
export type DeliveryView = z.infer<typeof DeliverySchema>;

export const DeliveryListQuerySchema = PaginationQuerySchema.extend({
  status: DeliverySchema.shape.status.optional().describe('Only deliveries in this state'),
});

export const WebhookTestResultSchema = z.object({
  delivered: z.boolean().describe('The receiver answered 2xx'),
  statusCode: z.number().int().nullable().describe('The receiver’s HTTP status; null when it gave none'),
  durationMs: z.number().int(),
  error: z.string().nullable(),
});
