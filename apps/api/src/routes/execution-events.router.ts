import type { ExecutionStatus } from '@botfleet/core';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { START } from '../live/run-cursor';
import { openSse } from '../live/sse-connection';
import {
  OrganizationEventsHeadersSchema,
  OrganizationEventsQuerySchema,
  OrganizationStreamEventSchema,
  RunEventsHeadersSchema,
  RunEventsQuerySchema,
  RunStreamEventSchema,
} from '../contracts/execution-events.contract';
import { ExecutionParams } from '../contracts/path-params';
import { executionOfCaller } from './resource-loaders';

const STREAM_HEADERS = {
  'Cache-Control': '`no-cache, no-transform`',
  'X-Accel-Buffering': '`no`: nginx passes each event on at once',
};

/**
 * The live event streams (docs/live-runs.md). Declared before the
 * executions' own routes: `/executions/events` must not be taken for an execution's id.
 */
export function executionEventRoutes({ liveEvents, streamSlots }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/executions/events',
        operationId: 'streamOrganizationExecutionEvents',
        tag: 'Executions',
        summary: 'Stream the status changes of the organization’s runs (Server-Sent Events)',
        description:
          'A `status` event for every change of status of the organization’s runs (filters: `botId`, `status`), ' +
          'and a heartbeat comment every SSE_HEARTBEAT_SECONDS. The stream stays open. With `Last-Event-ID` it ' +
          'first sends the runs changed since shortly before that event (at least once: a repeat carries the ' +
          'same state). Streams open at once are capped per organization and per key (`429`) and per API ' +
          'process (`503`), each with `Retry-After`. See docs/live-runs.md.',
        permission: 'read',
        query: OrganizationEventsQuerySchema,
        headers: OrganizationEventsHeadersSchema,
        responses: {
          200: {
            description: 'An event stream of `status` events',
            mediaType: 'text/event-stream',
            events: OrganizationStreamEventSchema,
            headers: STREAM_HEADERS,
          },
        },
      },
      async ({ auth, query, headers, req, res }) => {
        const resumeAfter = headers['Last-Event-ID'] ?? query.lastEventId ?? null;
        const filter = {
          ...(query.botId ? { botId: query.botId } : {}),
          ...(query.status ? { status: query.status.split(',') as ExecutionStatus[] } : {}),
        };
        const slot = await streamSlots.acquire(auth);
        liveEvents.followOrganization(openSse(req, res, slot), auth.organizationId, filter, resumeAfter);
        return { status: 200, handled: true } as const;
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId/events',
        operationId: 'streamExecutionEvents',
        tag: 'Executions',
        summary: 'Stream a run as it goes: status, each step, logs, then the end (Server-Sent Events)',
        description:
          'Events `status`, `step`, `log` and `end`, each with an `id`; the response ends after `end`. A run ' +
          'that already ended is replayed, then ended. Reconnect with `Last-Event-ID` to get exactly what was ' +
          'missed. A new attempt starts with a `status` event whose `attempt` is higher: its steps start again ' +
          'at index 0. Counts towards the caps on open streams (`429`, `503`, each with `Retry-After`). See ' +
          'docs/live-runs.md.',
        permission: 'read',
        params: ExecutionParams,
        query: RunEventsQuerySchema,
        headers: RunEventsHeadersSchema,
        load: { execution: executionOfCaller },
        responses: {
          200: {
            description: 'An event stream of `status`, `step`, `log` and `end` events',
            mediaType: 'text/event-stream',
            events: RunStreamEventSchema,
            headers: STREAM_HEADERS,
          },
        },
      },
      async ({ auth, execution, query, headers, req, res }) => {
        const from = headers['Last-Event-ID'] ?? query.lastEventId ?? START;
        const slot = await streamSlots.acquire(auth);
        liveEvents.followRun(openSse(req, res, slot), execution.id, from);
        return { status: 200, handled: true } as const;
      },
    ),
  ];
}
