import {
  AppError,
  ExecutionSchema,
  notFound,
  pageOf,
  settlesWithin,
  PaginationQuerySchema,
  TimestampSchema,
  TriggerBodySchema,
} from '@botfleet/core';
import { cancelExecution, latestExecution, latestExtract, listExecutions } from '@botfleet/db';
import { cancelChannel } from '@botfleet/queue';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { requireBot } from '../services/find-bot';
import { requireExecution } from '../services/find-execution';
import { triggerExecution } from '../services/trigger-execution';
import { toExecutionView } from '../views/execution.view';
import { BotParams, ExecutionParams } from './path-params';

const IdempotencyKeySchema = z.string().regex(/^[\x21-\x7e]{1,255}$/, 'must be 1-255 visible ASCII characters');

const TriggerResponseSchema = z.object({ executionId: z.string(), status: ExecutionSchema.shape.status });
const LatestExtractSchema = z.object({ executionId: z.string(), completedAt: TimestampSchema, data: z.unknown() });

function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const parsed = IdempotencyKeySchema.safeParse(header);
  if (!parsed.success) {
    throw new AppError('validation_error', 'Invalid Idempotency-Key header', [{ path: 'Idempotency-Key', message: parsed.error.issues[0]!.message, in: 'header' }]);
  }
  return parsed.data;
}

export function executionRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  return [
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/executions',
        tag: 'Executions',
        summary: 'Trigger a run of the bot; params are checked against the manifest',
        permission: 'write',
        params: BotParams,
        body: TriggerBodySchema,
        headers: { 'Idempotency-Key': 'Repeating a key within 24 h returns the first execution (200) instead of starting another' },
        responses: {
          202: { description: 'Accepted; the execution is pending', schema: TriggerResponseSchema },
          200: { description: 'The execution first created with this Idempotency-Key', schema: TriggerResponseSchema },
          409: { description: 'The bot is paused' },
        },
      },
      async ({ auth, params, body, req }) => {
        const { execution, created } = await triggerExecution(deps, {
          organizationId: auth.organizationId,
          botId: params.botId,
          params: body.params ?? {},
          idempotencyKey: idempotencyKeyOf(req.headers['idempotency-key']),
        });
        return {
          status: created ? 202 : 200,
          body: { executionId: execution.id, status: execution.status },
          headers: { Location: `/api/v1/executions/${execution.id}` },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/executions',
        tag: 'Executions',
        summary: 'List the bot’s executions, newest first',
        permission: 'read',
        params: BotParams,
        query: PaginationQuerySchema,
        responses: { 200: { description: 'A page of executions', schema: pageOf(ExecutionSchema) } },
      },
      async ({ auth, params, query }) => {
        await requireBot(db, auth.organizationId, params.botId);
        const page = await listExecutions(db, params.botId, { limit: query.limit, cursor: query.cursor });
        const now = Date.now();
        return { status: 200, body: { data: page.items.map((e) => toExecutionView(e, now)), nextCursor: page.nextCursor } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/latest-execution',
        tag: 'Executions',
        summary: 'The bot’s most recent execution, whatever its outcome',
        permission: 'read',
        params: BotParams,
        responses: { 200: { description: 'The execution', schema: ExecutionSchema } },
      },
      async ({ auth, params }) => {
        await requireBot(db, auth.organizationId, params.botId);
        const execution = await latestExecution(db, params.botId);
        if (!execution) throw notFound('Execution');
        return { status: 200, body: toExecutionView(execution) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/latest-extract',
        tag: 'Executions',
        summary: 'Extracted data of the bot’s most recent successful execution',
        permission: 'read',
        params: BotParams,
        responses: { 200: { description: 'The data', schema: LatestExtractSchema } },
      },
      async ({ auth, params }) => {
        await requireBot(db, auth.organizationId, params.botId);
        const execution = await latestExtract(db, params.botId);
        if (!execution || !execution.completedAt) throw notFound('Extracted data');
        return { status: 200, body: { executionId: execution.id, completedAt: execution.completedAt.getTime(), data: execution.extractedData } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions/:executionId',
        tag: 'Executions',
        summary: 'Get an execution',
        permission: 'read',
        params: ExecutionParams,
        responses: { 200: { description: 'The execution', schema: ExecutionSchema } },
      },
      async ({ auth, params }) => ({ status: 200, body: toExecutionView(await requireExecution(db, auth.organizationId, params.executionId)) }),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/executions/:executionId/cancel',
        tag: 'Executions',
        summary: 'Cancel a pending or running execution',
        permission: 'write',
        params: ExecutionParams,
        responses: { 200: { description: 'The cancelled execution', schema: ExecutionSchema }, 409: { description: 'The execution already ended' } },
      },
      async ({ auth, params }) => {
        const cancelled = await cancelExecution(db, auth.organizationId, params.executionId);
        const execution = await requireExecution(db, auth.organizationId, params.executionId);
        if (!cancelled) {
          throw new AppError('conflict', `Execution is already ${execution.status}`);
        }
        // Best effort: a waiting job is dropped, a running one is told to stop. The row is already
        // final, so a worker that misses both simply cannot write its result.
        await settlesWithin(
          Promise.allSettled([deps.queues.get('executions').remove(execution.id), deps.redis.publish(cancelChannel(deps.queues.prefix), execution.id)]),
          2_000,
        );
        return { status: 200, body: toExecutionView(execution) };
      },
    ),
  ];
}
