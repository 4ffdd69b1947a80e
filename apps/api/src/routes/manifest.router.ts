import { ManifestSchema, ManifestUpdateSchema } from '@botfleet/core';
import { loadManifest } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { requireBot } from '../services/find-bot';
import { toManifestView, updateManifest } from '../services/manifest.service';
import { BotParams } from './path-params';

export function manifestRoutes({ db, secretBox }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/manifest',
        tag: 'Manifest',
        summary: 'Get the bot’s manifest (secrets masked)',
        permission: 'read',
        params: BotParams,
        responses: { 200: { description: 'The manifest', schema: ManifestSchema } },
      },
      async ({ auth, params }) => {
        await requireBot(db, auth.organizationId, params.botId);
        return { status: 200, body: toManifestView(await loadManifest(db, params.botId)) };
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/bots/:botId/manifest',
        tag: 'Manifest',
        summary: 'Replace manifest sections; absent sections stay, omitted or masked secrets are kept',
        permission: 'write',
        params: BotParams,
        body: ManifestUpdateSchema,
        responses: { 200: { description: 'The new manifest (secrets masked)', schema: ManifestSchema } },
      },
      async ({ auth, params, body }) => {
        await requireBot(db, auth.organizationId, params.botId);
        // One transaction so two concurrent PUTs cannot interleave their read-merge-write.
        const manifest = await db.$transaction(async (tx) => {
          await tx.$executeRaw`SELECT 1 FROM "Manifest" WHERE "botId" = ${params.botId} FOR UPDATE`;
          return updateManifest(tx, secretBox, params.botId, body);
        });
        return { status: 200, body: manifest };
      },
    ),
  ];
}
