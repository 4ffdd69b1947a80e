import { WebhookAuthSchema, WebhookEventSchema, webhookUrlAsSeenBy, type Permission } from '@botfleet/core';
import type { listDeliveriesForExecution } from '@botfleet/db';
import type { DeliveryView } from '../contracts/deliveries.contract';
import { ms } from './time';

type DeliveryRow = Awaited<ReturnType<typeof listDeliveriesForExecution>>[number];

// Built field by field: the row's body and the manifest's secrets must never reach the response.
export function toDeliveryView(row: DeliveryRow, viewer: Permission): DeliveryView {
  return {
    id: row.id,
    executionId: row.executionId,
    event: WebhookEventSchema.parse(row.event),
    status: row.status,
    url: webhookUrlAsSeenBy(row.url, viewer),
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
