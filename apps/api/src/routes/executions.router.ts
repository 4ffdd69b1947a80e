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
import { cancelExecution, findExecution, latestExecution, latestExtract, listExecutions } from '@botfleet/db';
import { cancelChannel, executionRun } from '@botfleet/queue';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { triggerExecution } from '../services/trigger-execution';
import { toPageView } from '../views/collection.view';
import { toExecutionView, toTriggerReceiptView } from '../views/execution.view';
import { toLatestExtractView } from '../views/extract.view';
import { BotParams, ExecutionParams } from './path-params';
import { botOfCaller, botToTrigger, executionOfCaller } from './resource-loaders';

const TriggerHeadersSchema = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1-255 visible ASCII characters')
    .optional()
    .describe('Repeating a key within 24 h returns the first execution (200) instead of starting another'),
});

const TriggerResponseSchema = z.object({ executionId: z.string(), status: ExecutionSchema.shape.status });
const LatestExtractSchema = z.object({ executionId: z.string(), completedAt: TimestampSchema, data: z.unknown() });

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
        headers: TriggerHeadersSchema,
        load: { bot: botToTrigger },
        responses: {
          202: { description: 'Accepted; the execution is pending', schema: TriggerResponseSchema },
          200: { description: 'The execution first created with this Idempotency-Key', schema: TriggerResponseSchema },
          409: { description: 'The bot is paused' },
        },
      },
      async ({ auth, bot, body, headers }) => {
        const { execution, created } = await triggerExecution(deps, {
          organizationId: auth.organizationId,
          bot,
          params: body.params ?? {},
          idempotencyKey: headers['Idempotency-Key'],
        });
        return {
          status: created ? 202 : 200,
          body: toTriggerReceiptView(execution),
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
        load: { bot: botOfCaller },
        responses: { 200: { description: 'A page of executions', schema: pageOf(ExecutionSchema) } },
      },
      async ({ bot, query }) => {
        const page = await listExecutions(db, bot.id, { limit: query.limit, cursor: query.cursor });
        const now = Date.now();
        return { status: 200, body: toPageView(page, (e) => toExecutionView(e, now)) };
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
        load: { bot: botOfCaller },
        responses: { 200: { description: 'The execution', schema: ExecutionSchema } },
      },
      async ({ bot }) => {
        const execution = await latestExecution(db, bot.id);
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
        load: { bot: botOfCaller },
        responses: { 200: { description: 'The data', schema: LatestExtractSchema } },
      },
      async ({ bot }) => {
        const execution = await latestExtract(db, bot.id);
        if (!execution || !execution.completedAt) throw notFound('Extracted data');
        return { status: 200, body: toLatestExtractView({ ...execution, completedAt: execution.completedAt }) };
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
        load: { execution: executionOfCaller },
        responses: { 200: { description: 'The execution', schema: ExecutionSchema } },
      },
      async ({ execution }) => ({ status: 200, body: toExecutionView(execution) }),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/executions/:executionId/cancel',
        tag: 'Executions',
        summary: 'Cancel a pending or running execution',
        permission: 'write',
        params: ExecutionParams,
        load: { execution: executionOfCaller },
        responses: {
          200: { description: 'The cancelled execution', schema: ExecutionSchema },
          409: { description: 'The execution already ended' },
        },
      },
      async ({ auth, execution }) => {
        const cancelled = await cancelExecution(db, auth.organizationId, execution.id);
        if (!cancelled) {
          // Read again: the loaded row may predate whatever ended it meanwhile.
          const current = await findExecution(db, auth.organizationId, execution.id);
          if (!current) throw notFound('Execution');
          throw new AppError('conflict', `Execution is already ${current.status}`);
        }
        // Best effort: a waiting job is dropped, a running one is told to stop. The row is already
        // final, so a worker that misses both simply cannot write its result.
        await settlesWithin(
          Promise.allSettled([
            deps.queues.get(executionRun.queue).remove(executionRun.jobIdOf({ executionId: cancelled.id })),
            deps.redis.publish(cancelChannel(deps.queues.prefix), cancelled.id),
          ]),
          2_000,
        );
        return { status: 200, body: toExecutionView(cancelled) };
      },
    ),
  ];
}
