import { notFound } from '@botfleet/core';
import {
  latestExecution,
  latestExtract,
  listExecutions,
  listOrganizationExecutions,
  queueBacklog,
  type ExecutionFilter,
} from '@botfleet/db';
import {
  cancelBotExecutions,
  cancelExecution,
  rerunExecution,
  triggerExecution,
  triggerExecutionBatch,
} from '@botfleet/engine';
import { countQueueWorkers, executionRun } from '@botfleet/queue';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { toPageView } from '../views/collection.view';
import { toExecutionView, toTriggerReceiptView } from '../views/execution.view';
import { toLatestExtractView } from '../views/extract.view';
import { toQueueOverviewView } from '../views/queue-overview.view';
import { pageOf } from '../contracts/common.contract';
import {
  BatchBodySchema,
  BatchReceiptSchema,
  BulkCancelBodySchema,
  BulkCancelResultSchema,
  ExecutionListQuerySchema,
  ExecutionSchema,
  LatestExtractSchema,
  OrganizationExecutionListQuerySchema,
  QueueOverviewSchema,
  RerunBodySchema,
  TriggerBodySchema,
  TriggerHeadersSchema,
  TriggerReceiptSchema,
  type ExecutionListQuery,
} from '../contracts/executions.contract';
import { BotParams, ExecutionParams } from '../contracts/path-params';
import { botOfCaller, botToTrigger, executionOfCaller } from './resource-loaders';

export function executionRoutes(deps: ApiDeps): Route[] {
  const { db } = deps;
  return [
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/executions',
        operationId: 'triggerExecution',
        tag: 'Executions',
        summary: 'Trigger a run of the bot; params are checked against the manifest',
        permission: 'write',
        params: BotParams,
        body: TriggerBodySchema,
        headers: TriggerHeadersSchema,
        load: { bot: botToTrigger },
        responses: {
          202: {
            description: 'Accepted; the execution is pending',
            schema: TriggerReceiptSchema,
            headers: { Location: 'Path of the execution' },
          },
          200: {
            description: 'The execution first created with this Idempotency-Key',
            schema: TriggerReceiptSchema,
            headers: { Location: 'Path of the execution' },
          },
          409: { description: 'The bot is paused' },
        },
      },
      async ({ auth, bot, body, headers }) => {
        const { execution, created } = await triggerExecution(deps, {
          organizationId: auth.organizationId,
          organizationMaxPending: auth.limits.maxPendingExecutions,
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
        operationId: 'listExecutions',
        tag: 'Executions',
        summary: 'List the bot’s executions, newest first (filters: status, trigger, created range)',
        permission: 'read',
        params: BotParams,
        query: ExecutionListQuerySchema,
        load: { bot: botOfCaller },
        responses: { 200: { description: 'A page of executions', schema: pageOf(ExecutionSchema) } },
      },
      async ({ bot, query }) => {
        const page = await listExecutions(db, bot.id, {
          limit: query.limit,
          cursor: query.cursor,
          filter: filterOf(query),
        });
        const now = Date.now();
        // The bot is loaded already: its name needs no join.
        return { status: 200, body: toPageView(page, (e) => toExecutionView({ ...e, botName: bot.name }, now)) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/executions',
        operationId: 'listOrganizationExecutions',
        tag: 'Executions',
        summary: 'List the organization’s executions across its bots, newest first (filters as for a bot, plus botId)',
        permission: 'read',
        query: OrganizationExecutionListQuerySchema,
        responses: { 200: { description: 'A page of executions', schema: pageOf(ExecutionSchema) } },
      },
      async ({ auth, query }) => {
        const page = await listOrganizationExecutions(db, auth.organizationId, {
          limit: query.limit,
          cursor: query.cursor,
          filter: { ...filterOf(query), ...(query.botId ? { botId: query.botId } : {}) },
        });
        const now = Date.now();
        return { status: 200, body: toPageView(page, (e) => toExecutionView(e, now)) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/queue',
        operationId: 'getQueueOverview',
        tag: 'Executions',
        summary: 'The organization’s runs in the queue: pending and running counts, the oldest wait, workers',
        description:
          'Counts only the caller’s organization’s executions. `workers` is the fleet’s count of workers on the ' +
          'executions queue, which says nothing about any organization. The queue’s total depth is deliberately ' +
          'not offered: it would reveal how busy other organizations are. Operators see every job at ' +
          '`/admin/queues` (HTTP Basic with OPS_ADMIN_TOKEN).',
        permission: 'admin',
        responses: { 200: { description: 'The overview', schema: QueueOverviewSchema } },
      },
      async ({ auth }) => {
        const [backlog, workers] = await Promise.all([
          queueBacklog(db, auth.organizationId),
          countQueueWorkers(deps.queues.get(executionRun.queue)),
        ]);
        return { status: 200, body: toQueueOverviewView(backlog, workers) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/executions/batch',
        operationId: 'triggerExecutionBatch',
        tag: 'Executions',
        summary: 'Trigger up to 1,000 runs of the bot at once; one bad run refuses them all',
        permission: 'write',
        params: BotParams,
        body: BatchBodySchema,
        load: { bot: botToTrigger },
        responses: {
          202: { description: 'Accepted; one pending execution per run, in order', schema: BatchReceiptSchema },
          409: { description: 'The bot is paused' },
        },
      },
      async ({ auth, bot, body }) => {
        const ids = await triggerExecutionBatch(deps, {
          organizationId: auth.organizationId,
          organizationMaxPending: auth.limits.maxPendingExecutions,
          bot,
          runs: body.runs,
        });
        return { status: 202, body: { data: ids.map((executionId) => ({ executionId, status: 'pending' as const })) } };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/executions/cancel',
        operationId: 'cancelBotExecutions',
        tag: 'Executions',
        summary: 'Cancel the bot’s pending (and optionally running) executions',
        permission: 'write',
        params: BotParams,
        body: BulkCancelBodySchema,
        load: { bot: botOfCaller },
        responses: { 200: { description: 'How many executions were cancelled', schema: BulkCancelResultSchema } },
      },
      async ({ auth, bot, body }) => {
        const cancelled = await cancelBotExecutions(deps, {
          organizationId: auth.organizationId,
          botId: bot.id,
          statuses: body.status ?? ['pending'],
        });
        return { status: 200, body: { cancelled } };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/executions/:executionId/rerun',
        operationId: 'rerunExecution',
        tag: 'Executions',
        summary: 'Run an execution again with its params (or new ones); the new one has trigger "rerun"',
        permission: 'write',
        params: ExecutionParams,
        body: RerunBodySchema,
        load: { execution: executionOfCaller },
        responses: {
          202: { description: 'Accepted; the new execution is pending', schema: TriggerReceiptSchema },
          409: { description: 'The bot is paused' },
        },
      },
      async ({ auth, execution, body }) => {
        const rerun = await rerunExecution(deps, {
          organizationId: auth.organizationId,
          organizationMaxPending: auth.limits.maxPendingExecutions,
          execution,
          ...(body.params ? { params: body.params } : {}),
        });
        return {
          status: 202,
          body: toTriggerReceiptView(rerun),
          headers: { Location: `/api/v1/executions/${rerun.id}` },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/latest-execution',
        operationId: 'getLatestExecution',
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
        return { status: 200, body: toExecutionView({ ...execution, botName: bot.name }) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/latest-extract',
        operationId: 'getLatestExtract',
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
        operationId: 'getExecution',
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
        operationId: 'cancelExecution',
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
        const cancelled = await cancelExecution(deps, {
          organizationId: auth.organizationId,
          executionId: execution.id,
        });
        return { status: 200, body: toExecutionView({ ...cancelled, botName: execution.botName }) };
      },
    ),
  ];
}

/** The list filters as the repository takes them. */
function filterOf(query: ExecutionListQuery): ExecutionFilter {
  return {
    ...(query.status ? { status: query.status.split(',') as ExecutionFilter['status'] } : {}),
    ...(query.trigger ? { trigger: query.trigger } : {}),
    ...(query.createdAfter !== undefined ? { createdAfter: new Date(query.createdAfter) } : {}),
    ...(query.createdBefore !== undefined ? { createdBefore: new Date(query.createdBefore) } : {}),
  };
}
