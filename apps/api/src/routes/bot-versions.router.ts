import { notFound, type Permission } from '@botfleet/core';
import { findBotVersion, listBotVersions, summarizeBotVersion, type Db } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { loginsNamed, requireAdminToAttach } from '../services/bot-login-guard';
import { restoreVersion } from '../services/bot-versions.service';
import { credentialReferencesOf } from '../services/credential-references';
import { toBotVersionSummaryView, toBotVersionView } from '../views/bot-version.view';
import {
  BotVersionParams,
  BotVersionSchema,
  BotVersionSummarySchema,
  BotVersionsQuerySchema,
} from '../contracts/bot-versions.contract';
import { BOT_LOGIN_FORBIDDEN, pageOf } from '../contracts/common.contract';
import { BotParams } from '../contracts/path-params';
import { botOfCaller, botToChange } from './resource-loaders';

/** One version as GET shows it, against the bot's current version; 404 when the bot has no such version. */
async function showVersion(db: Db, botId: string, version: number, currentVersion: number, viewer: Permission) {
  const [record, summary] = await Promise.all([
    findBotVersion(db, botId, version),
    summarizeBotVersion(db, botId, version),
  ]);
  if (!record || !summary) throw notFound('Version');
  return toBotVersionView(record, summary, currentVersion, viewer);
}

export function botVersionRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/versions',
        operationId: 'listBotVersions',
        tag: 'Bots',
        summary: 'The bot’s versions, newest first, with what each changed',
        description:
          'Every change of the steps, scripts or manifest makes a version; version 1 is the bot as created. ' +
          'All versions are kept for the bot’s life.',
        permission: 'read',
        params: BotParams,
        query: BotVersionsQuerySchema,
        load: { bot: botOfCaller },
        responses: { 200: { description: 'A page of versions', schema: pageOf(BotVersionSummarySchema) } },
      },
      async ({ bot, query }) => {
        const page = await listBotVersions(db, bot.id, { limit: query.limit, before: query.cursor });
        return {
          status: 200,
          body: {
            data: page.items.map((item) => toBotVersionSummaryView(item, bot.version)),
            nextCursor: page.nextCursor,
          },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/versions/:version',
        operationId: 'getBotVersion',
        tag: 'Bots',
        summary: 'One version of the bot: its steps, scripts and manifest (secrets masked)',
        permission: 'read',
        params: BotVersionParams,
        load: { bot: botOfCaller },
        responses: {
          200: { description: 'The version', schema: BotVersionSchema },
          404: { description: 'No such bot, or the bot has no such version', code: 'not_found' },
        },
      },
      async ({ auth, bot, params }) => ({
        status: 200,
        body: await showVersion(db, bot.id, params.version, bot.version, auth.permission),
      }),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/versions/:version/restore',
        operationId: 'restoreBotVersion',
        tag: 'Bots',
        summary: 'Make a version the current one again, as a new version (restoredFrom)',
        description:
          'Brings back the version’s exact steps, scripts and manifest, sealed secrets included. The new ' +
          'version answers 201; restoring what is already the current definition changes nothing and answers ' +
          '200 with the current version. Runs triggered before keep the version they were triggered with.',
        permission: 'write',
        params: BotVersionParams,
        load: { bot: botToChange },
        responses: {
          200: {
            description: 'Nothing to restore: the current version, which already is that definition',
            schema: BotVersionSchema,
          },
          201: {
            description: 'The new version',
            schema: BotVersionSchema,
            headers: { Location: 'Path of the new version' },
          },
          403: BOT_LOGIN_FORBIDDEN,
          404: { description: 'No such bot, or the bot has no such version', code: 'not_found' },
          409: {
            description: 'The version names a profile or credential the organization no longer has (named in details)',
            code: 'conflict',
          },
        },
      },
      async ({ auth, bot, params }) => {
        const target = await findBotVersion(db, bot.id, params.version);
        if (!target) throw notFound('Version');
        requireAdminToAttach(
          auth,
          loginsNamed(target.manifest.session?.profileId, credentialReferencesOf(target.steps)),
        );
        const restored = await restoreVersion(db, auth.organizationId, target);
        if (!restored) throw notFound('Bot');
        const body = await showVersion(db, bot.id, restored.version, restored.version, auth.permission);
        if (!restored.created) return { status: 200, body };
        return { status: 201, body, headers: { Location: `/api/v1/bots/${bot.id}/versions/${restored.version}` } };
      },
    ),
  ];
}
