import { listOf, notFound, TimestampSchema, WebhookAuthSchema } from '@botfleet/core';
import { findExecution, listDeliveriesForExecution } from '@botfleet/db';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { ms } from '../views/time';
import { ExecutionParams } from './path-params';

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

type DeliveryRow = Awaited<ReturnType<typeof listDeliveriesForExecution>>[number];

// Built field by field: the row's body and the manifest's secrets must never reach the response.
function toDeliveryView(row: DeliveryRow): DeliveryView {
  return {
    id: row.id,
    status: row.status,
    url: row.url,
    auth: WebhookAuthSchema.parse(row.auth),
    attemptCount: row.attemptCount,
    nextAttemptAt: ms(row.nextAttemptAt),
    lastError: row.lastError,
    createdAt: row.createdAt.getTime(),
    completedAt: ms(row.completedAt),
    attempts: row.attempts.map((a) => ({
      number: a.number,
      startedAt: a.startedAt.getTime(),
      durationMs: a.durationMs,
      statusCode: a.statusCode,
      error: a.error,
    })),
  };
}

export function deliveryRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/deliveries',
        tag: 'Executions',
        summary: 'Webhook deliveries of an execution, with every attempt',
        permission: 'read',
        params: ExecutionParams,
        responses: { 200: { description: 'The execution’s deliveries, oldest first', schema: listOf(DeliverySchema) } },
      },
      async ({ auth, params }) => {
        const execution = await findExecution(db, auth.organizationId, params.executionId);
        if (!execution) throw notFound('Execution');
        const rows = await listDeliveriesForExecution(db, execution.id);
        return { status: 200, body: { data: rows.map(toDeliveryView) } };
      },
    ),
  ];
}
