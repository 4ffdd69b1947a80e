import { MAX_RECORDING_BYTES, notFound, UpdateBotSchema } from '@botfleet/core';
import { createBot, deleteBot, listBots, updateBot } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { createBotFromRecording } from '../services/bot-from-recording';
import { toBotDetail, toBotSummary } from '../views/bot.view';
import { toPageView } from '../views/collection.view';
import { BotDetailSchema, BotSummarySchema, CreateBotRequestSchema, CreatedBotSchema } from './bots.contract';
import { pageOf, PaginationQuerySchema } from './common.contract';
import { BotParams } from './path-params';
import { botOfCaller } from './resource-loaders';

export function botRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots',
        operationId: 'listBots',
        tag: 'Bots',
        summary: 'List the organization’s bots, newest first',
        permission: 'read',
        query: PaginationQuerySchema,
        responses: { 200: { description: 'A page of bots', schema: pageOf(BotSummarySchema) } },
      },
      async ({ auth, query }) => {
        const page = await listBots(db, auth.organizationId, {
          limit: query.limit,
          cursor: query.cursor,
        });
        return { status: 200, body: toPageView(page, toBotSummary) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots',
        operationId: 'createBot',
        tag: 'Bots',
        summary: 'Create a bot, or one from a Chrome DevTools Recorder recording (its steps, name and targetUrl)',
        permission: 'write',
        body: CreateBotRequestSchema,
        bodyLimitBytes: MAX_RECORDING_BYTES,
        responses: {
          201: { description: 'The created bot', schema: CreatedBotSchema, headers: { Location: 'Path of the bot' } },
        },
      },
      async ({ auth, body }) => {
        const { recording } = body;
        if (recording !== undefined) {
          const { bot, warnings } = await createBotFromRecording(db, auth.organizationId, { ...body, recording });
          const location = { Location: `/api/v1/bots/${bot.id}` };
          return { status: 201, body: { ...toBotDetail(bot), warnings }, headers: location };
        }
        const { name, targetUrl } = body;
        // The schema requires both without a recording; this only tells TypeScript.
        if (name === undefined || targetUrl === undefined) throw new Error('name and targetUrl are required');
        const bot = await createBot(db, auth.organizationId, { ...body, name, targetUrl });
        return { status: 201, body: toBotDetail(bot), headers: { Location: `/api/v1/bots/${bot.id}` } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId',
        operationId: 'getBot',
        tag: 'Bots',
        summary: 'Get a bot',
        permission: 'read',
        params: BotParams,
        load: { bot: botOfCaller },
        responses: { 200: { description: 'The bot', schema: BotDetailSchema } },
      },
      async ({ bot }) => ({ status: 200, body: toBotDetail(bot) }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/bots/:botId',
        operationId: 'updateBot',
        tag: 'Bots',
        summary: 'Update a bot (name, description, targetUrl, tags, status, retry policy)',
        permission: 'write',
        params: BotParams,
        body: UpdateBotSchema,
        responses: { 200: { description: 'The updated bot', schema: BotDetailSchema } },
      },
      async ({ auth, params, body }) => {
        const bot = await updateBot(db, auth.organizationId, params.botId, body);
        if (!bot) throw notFound('Bot');
        return { status: 200, body: toBotDetail(bot) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/bots/:botId',
        operationId: 'deleteBot',
        tag: 'Bots',
        summary: 'Delete a bot with its executions, steps, scripts, schedule and artifacts',
        permission: 'write',
        params: BotParams,
        responses: { 204: { description: 'Deleted' } },
      },
      async ({ auth, params }) => {
        if (!(await deleteBot(db, auth.organizationId, params.botId))) throw notFound('Bot');
        return { status: 204 };
      },
    ),
  ];
}
