import { createPostgresArtifactStore, deleteArtifactContent } from '@botfleet/artifacts';
import { MAX_RECORDING_BYTES, notFound, UpdateBotSchema } from '@botfleet/core';
import { createBot, deleteBot, findBotListing, listBots, newBotListing, updateBot } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { requireAdminToChangeBot } from '../services/bot-login-guard';
import { createBotFromRecording } from '../services/bot-from-recording';
import { toBotDetail, toBotSummary } from '../views/bot.view';
import { toPageView } from '../views/collection.view';
import {
  BotDetailSchema,
  BotListQuerySchema,
  BotSummarySchema,
  CreateBotRequestSchema,
  CreatedBotSchema,
} from '../contracts/bots.contract';
import { BOT_LOGIN_FORBIDDEN, pageOf } from '../contracts/common.contract';
import { BotParams } from '../contracts/path-params';
import { botListingOfCaller, botOfCaller } from './resource-loaders';

export function botRoutes({ db, logger, artifactStore = createPostgresArtifactStore() }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots',
        operationId: 'listBots',
        tag: 'Bots',
        summary:
          'List the organization’s bots: search, filter by tag and status, sort; each with its last run and schedule',
        permission: 'read',
        query: BotListQuerySchema,
        responses: { 200: { description: 'A page of bots', schema: pageOf(BotSummarySchema) } },
      },
      async ({ auth, query }) => {
        const page = await listBots(db, auth.organizationId, {
          limit: query.limit,
          sort: query.sort,
          cursor: query.cursor,
          filter: { q: query.q, tags: query.tag, status: query.status },
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
          403: BOT_LOGIN_FORBIDDEN,
          404: {
            description: 'The recording’s `credentials` name a credential the organization does not have',
            code: 'not_found',
          },
        },
      },
      async ({ auth, body }) => {
        const { recording } = body;
        if (recording !== undefined) {
          const { bot, warnings } = await createBotFromRecording(db, auth, { ...body, recording });
          const location = { Location: `/api/v1/bots/${bot.id}` };
          return { status: 201, body: { ...toBotDetail(newBotListing(bot)), warnings }, headers: location };
        }
        const { name, targetUrl } = body;
        // The schema requires both without a recording; this only tells TypeScript.
        if (name === undefined || targetUrl === undefined) throw new Error('name and targetUrl are required');
        const bot = await createBot(db, auth.organizationId, { ...body, name, targetUrl });
        return { status: 201, body: toBotDetail(newBotListing(bot)), headers: { Location: `/api/v1/bots/${bot.id}` } };
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
        load: { bot: botListingOfCaller },
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
        description:
          'A new `targetUrl` for a bot that uses a saved login (a profile, a credential) needs an admin key; its ' +
          'other fields, and a `targetUrl` sent back unchanged, do not.',
        permission: 'write',
        params: BotParams,
        body: UpdateBotSchema,
        load: { current: botOfCaller },
        responses: { 200: { description: 'The updated bot', schema: BotDetailSchema }, 403: BOT_LOGIN_FORBIDDEN },
      },
      async ({ auth, params, current, body }) => {
        // Where the bot's runs start is part of what it does; its name, tags or status are not.
        if (body.targetUrl !== undefined && body.targetUrl !== current.targetUrl) {
          await requireAdminToChangeBot(db, auth, current.id);
        }
        const updated = await updateBot(db, auth.organizationId, params.botId, body);
        // Read again as GET shows it, with its last run and schedule (null: deleted meanwhile).
        const bot = updated && (await findBotListing(db, auth.organizationId, params.botId));
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
        const deleted = await deleteBot(db, auth.organizationId, params.botId);
        if (!deleted) throw notFound('Bot');
        // The rows are gone whatever happens here: a failure is logged rather than answered.
        await deleteArtifactContent(artifactStore, deleted.storageKeys, {
          logger,
          level: 'error',
          message: "the deleted bot's artifacts could not be removed from the artifact store",
          fields: { botId: params.botId },
        });
        return { status: 204 };
      },
    ),
  ];
}
