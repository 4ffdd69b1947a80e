import { isIdOf, TimestampSchema } from '@botfleet/core';
import { z } from 'zod';
import { decodeRunCursor } from '../live/run-cursor';
import { LogEntrySchema, StepOutputSchema } from './execution-results.contract';
import { ExecutionSchema, ExecutionStatusSchema, OrganizationExecutionListQuerySchema } from './executions.contract';

/*
 * The live event streams (docs/live-runs.md). Event payloads are part of the contract: the
 * console and the SDK read them, so their shapes only ever grow.
 */

/** A run stream's event id, decoded; anything this API did not issue is a 400. */
const RunEventIdSchema = z
  .string()
  .max(80)
  .transform((value, ctx) => {
    const cursor = decodeRunCursor(value);
    if (cursor) return cursor;
    ctx.addIssue({ code: 'custom', message: 'is not an event id of this stream' });
    return z.NEVER;
  });

/** An organization stream's event id (`updatedAt.executionId`), decoded to its time. */
const OrganizationEventIdSchema = z
  .string()
  .max(80)
  .transform((value, ctx) => {
    const match = /^(\d{1,15})\.(exe_[A-Za-z0-9_-]+)$/.exec(value);
    if (match && isIdOf('exe', match[2]!)) return Number(match[1]);
    ctx.addIssue({ code: 'custom', message: 'is not an event id of this stream' });
    return z.NEVER;
  });

const LAST_EVENT_ID = 'The `id` of the last event received; the stream resumes after it';

export const RunEventsHeadersSchema = z.object({
  'Last-Event-ID': RunEventIdSchema.optional().describe(LAST_EVENT_ID),
});
export const RunEventsQuerySchema = z.strictObject({
  lastEventId: RunEventIdSchema.optional().describe('As the Last-Event-ID header, for clients that cannot set it'),
});

export const OrganizationEventsHeadersSchema = z.object({
  'Last-Event-ID': OrganizationEventIdSchema.optional().describe(LAST_EVENT_ID),
});
export const OrganizationEventsQuerySchema = z.strictObject({
  botId: OrganizationExecutionListQuerySchema.shape.botId,
  status: OrganizationExecutionListQuerySchema.shape.status,
  lastEventId: OrganizationEventIdSchema.optional().describe(
    'As the Last-Event-ID header, for clients that cannot set it',
  ),
});

const EventId = z.string().describe('Cursor of the stream after this event: send it back as Last-Event-ID');

export const RunStepEventSchema = StepOutputSchema.extend({
  attempt: z.number().int().min(1).describe('The attempt the step belongs to; a new attempt starts again at index 0'),
}).meta({ id: 'RunStepEvent' });

export const RunEndEventSchema = z
  .object({ status: z.enum(['completed', 'failed', 'cancelled']) })
  .meta({ id: 'RunEndEvent' });

/** One event of a run's stream, as its SSE fields (`data` is JSON on one line). */
export const RunStreamEventSchema = z
  .discriminatedUnion('event', [
    z.object({ event: z.literal('status'), id: EventId, data: ExecutionSchema }),
    z.object({ event: z.literal('step'), id: EventId, data: RunStepEventSchema }),
    z.object({ event: z.literal('log'), id: EventId, data: LogEntrySchema }),
    z.object({ event: z.literal('end'), id: EventId, data: RunEndEventSchema }),
  ])
  .meta({
    id: 'RunStreamEvent',
    description:
      'One Server-Sent Event of a run’s stream: `status` (the run, at the start and on each change of status or ' +
      'attempt), `step` (each step output as it finishes), `log` (each log line), `end` (after the final status; ' +
      'the response then ends).',
  });
export type RunStreamEvent = z.infer<typeof RunStreamEventSchema>;

export const ExecutionStatusChangeSchema = z
  .object({
    executionId: z.string(),
    botId: z.string(),
    status: ExecutionStatusSchema,
    attempt: z.number().int().min(1),
    updatedAt: TimestampSchema.describe('When the change was made (Unix ms)'),
  })
  .meta({ id: 'ExecutionStatusChange' });
export type ExecutionStatusChange = z.infer<typeof ExecutionStatusChangeSchema>;

/** One event of the organization's stream. */
export const OrganizationStreamEventSchema = z
  .object({ event: z.literal('status'), id: EventId, data: ExecutionStatusChangeSchema })
  .meta({
    id: 'OrganizationStreamEvent',
    description: 'One Server-Sent Event of the organization’s stream: a run’s new status.',
  });
export type OrganizationStreamEvent = z.infer<typeof OrganizationStreamEventSchema>;
