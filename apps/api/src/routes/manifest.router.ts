import { loadManifest, modifyManifest } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { loginsNamed, requireAdminToAttach } from '../services/bot-login-guard';
import { applyManifestUpdate, checkSessionProfile } from '../services/manifest.service';
import { toManifestView } from '../views/manifest.view';
import { BOT_LOGIN_FORBIDDEN } from '../contracts/common.contract';
import { ManifestSchema, ManifestUpdateSchema } from '../contracts/manifest.contract';
import { BotParams } from '../contracts/path-params';
import { botOfCaller, botToChange } from './resource-loaders';

export function manifestRoutes({ db, secretBox }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/manifest',
        operationId: 'getManifest',
        tag: 'Manifest',
        summary: 'Get the bot’s manifest (secrets masked)',
        permission: 'read',
        params: BotParams,
        load: { bot: botOfCaller },
        responses: { 200: { description: 'The manifest', schema: ManifestSchema } },
      },
      async ({ auth, bot }) => ({ status: 200, body: toManifestView(await loadManifest(db, bot.id), auth.permission) }),
    ),
    defineRoute(
      {
        method: 'put',
        path: '/bots/:botId/manifest',
        operationId: 'updateManifest',
        tag: 'Manifest',
        summary: 'Replace manifest sections; absent sections stay, omitted or masked secrets are kept',
        description:
          'A `session` section names a browser profile of the organization (404 `not_found` otherwise, and nothing ' +
          'changes); `"session": null` removes it. Attaching a profile needs an admin key, as does any change to the ' +
          'manifest of a bot that uses a saved login.',
        permission: 'write',
        params: BotParams,
        body: ManifestUpdateSchema,
        load: { bot: botToChange },
        responses: {
          200: { description: 'The new manifest (secrets masked)', schema: ManifestSchema },
          403: BOT_LOGIN_FORBIDDEN,
        },
      },
      async ({ auth, bot, body }) => {
        requireAdminToAttach(auth, loginsNamed(body.session?.profileId, []));
        // Locked read-merge-write, so two concurrent PUTs cannot interleave theirs.
        const manifest = await modifyManifest(db, bot.id, async (current, tx) => {
          await checkSessionProfile(tx, auth.organizationId, body);
          return applyManifestUpdate(secretBox, current, body);
        });
        return { status: 200, body: toManifestView(manifest, auth.permission) };
      },
    ),
  ];
}
