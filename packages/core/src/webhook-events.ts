import { z } from 'zod';
import { buildDeliveryBody, selectDataPath } from './data-path';

/** The events a bot's webhook may subscribe to (`webhook.events`). */
export const WEBHOOK_EVENTS = [
  'execution.completed',
  'execution.failed',
  'execution.cancelled',
  'data.changed',
] as const;
export const WebhookEventSchema = z.enum(WEBHOOK_EVENTS);
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

/** What a webhook without `events` receives: the behaviour from before events existed. */
export const DEFAULT_WEBHOOK_EVENTS: readonly WebhookEvent[] = ['execution.completed'];

/** Sent by POST /bots/:botId/webhook/test only; never stored, never retried. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** The webhook settings that decide which events are sent and what they look like. */
export interface WebhookEventSettings {
  events?: readonly WebhookEvent[];
  /** Wrap `execution.completed` in the envelope too (every other event always is). */
  envelope?: boolean;
  /** Hold back `execution.completed` when the data did not change. */
  onlyOnChange?: boolean;
  dataPath?: string;
}

/** How the run's narrowed data compares with the previous completed run's. */
export interface DataChange {
  changed: boolean;
  previousExecutionId: string | null;
}

/** The end of an execution, as far as its events need to know. */
export type ExecutionEnd =
  | { status: 'completed'; data: unknown; change: DataChange | null }
  | { status: 'failed'; error: string; screenshotUrl: string | null }
  | { status: 'cancelled' };

export interface ExecutionFacts {
  executionId: string;
  botId: string;
  /** When the execution ended: the envelope's `timestamp`, fixed so every retry sends the same bytes. */
  endedAt: Date;
}

/** One delivery to create: its event and the exact body to sign and send. */
export interface PlannedEvent {
  event: WebhookEvent;
  body: string;
}

export function subscribedEvents(settings: WebhookEventSettings): readonly WebhookEvent[] {
  return settings.events && settings.events.length > 0 ? settings.events : DEFAULT_WEBHOOK_EVENTS;
}

/** The Standard Webhooks body: `{ type, timestamp, data }`. */
export function buildEnvelope(type: string, timestamp: Date, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp: timestamp.toISOString(), data });
}

export function buildTestEventBody(botId: string, now: Date): string {
  return buildEnvelope(WEBHOOK_TEST_EVENT, now, { botId });
}

/**
 * The deliveries an execution's end produces, in the order they are sent. A completion without
 * data sends nothing (as before events existed); `data.changed` needs the change detection result.
 */
export function planExecutionEvents(
  settings: WebhookEventSettings,
  facts: ExecutionFacts,
  end: ExecutionEnd,
): PlannedEvent[] {
  const wanted = new Set(subscribedEvents(settings));
  const base = { executionId: facts.executionId, botId: facts.botId, status: end.status };
  const envelope = (event: WebhookEvent, extra: Record<string, unknown> = {}): PlannedEvent => ({
    event,
    body: buildEnvelope(event, facts.endedAt, { ...base, ...extra }),
  });
  const planned: PlannedEvent[] = [];
  switch (end.status) {
    case 'completed': {
      if (end.data === null || end.data === undefined) break;
      const narrowed = selectDataPath(end.data, settings.dataPath) ?? null;
      const unchanged = end.change !== null && !end.change.changed;
      if (wanted.has('execution.completed') && !(settings.onlyOnChange && unchanged)) {
        planned.push(
          settings.envelope
            ? envelope('execution.completed', { data: narrowed })
            : { event: 'execution.completed', body: buildDeliveryBody(end.data, settings.dataPath) },
        );
      }
      if (wanted.has('data.changed') && end.change?.changed) {
        planned.push(envelope('data.changed', { data: narrowed, previousExecutionId: end.change.previousExecutionId }));
      }
      break;
    }
    case 'failed':
      if (wanted.has('execution.failed'))
        planned.push(envelope('execution.failed', { error: end.error, screenshotUrl: end.screenshotUrl }));
      break;
    case 'cancelled':
      if (wanted.has('execution.cancelled')) planned.push(envelope('execution.cancelled'));
      break;
  }
  return planned;
}
