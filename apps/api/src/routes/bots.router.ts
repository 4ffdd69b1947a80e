import {
  BotDetailSchema,
  BotSummarySchema,
  CreateBotSchema,
  notFound,
  pageOf,
  PaginationQuerySchema,
  UpdateBotSchema,
} from '@botfleet/core';
import { createBot, deleteBot, listBots, updateBot } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { toBotDetail, toBotSummary } from '../views/bot.view';
import { toPageView } from '../views/collection.view';
import { BotParams } from './path-params';
import { botOfCaller } from './resource-loaders';

export function botRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots',
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
        tag: 'Bots',
        summary: 'Create a bot',
        permission: 'write',
        body: CreateBotSchema,
        responses: { 201: { description: 'The created bot', schema: BotDetailSchema } },
      },
      async ({ auth, body }) => {
        const bot = await createBot(db, auth.organizationId, body);
        return { status: 201, body: toBotDetail(bot), headers: { Location: `/api/v1/bots/${bot.id}` } };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId',
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
        tag: 'Bots',
        summary: 'Update a bot (name, description, targetUrl, tags, status)',
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
