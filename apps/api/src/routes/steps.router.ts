import { exportRecording, importRecording, indexSteps, MAX_RECORDING_BYTES, RecordingSchema } from '@botfleet/core';
import { loadSteps, replaceStepsAndScript } from '@botfleet/db';
import { generateScript } from '@botfleet/runner';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { loginsNamed, requireAdminToAttach } from '../services/bot-login-guard';
import {
  checkCredentialReferences,
  checkStepCredentials,
  credentialReferencesOf,
  credentialReferencesOfBindings,
} from '../services/credential-references';
import { toListView } from '../views/collection.view';
import { BOT_LOGIN_FORBIDDEN } from '../contracts/common.contract';
import { BotParams } from '../contracts/path-params';
import { botOfCaller, botToChange } from './resource-loaders';
import {
  ImportResponseSchema,
  PutStepsSchema,
  StepsFormatQuerySchema,
  StepsOrRecordingSchema,
  StepsResponseSchema,
} from '../contracts/steps.contract';

export function stepRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/steps',
        operationId: 'listSteps',
        tag: 'Steps',
        summary: 'The bot’s recorded steps, ordered by index (or as a Chrome Recorder recording)',
        permission: 'read',
        params: BotParams,
        query: StepsFormatQuerySchema,
        load: { bot: botOfCaller },
        responses: {
          200: {
            description: 'The steps; with `format=recorder`, a recording',
            schema: StepsOrRecordingSchema,
          },
        },
      },
      async ({ bot, query }) => {
        const steps = await loadSteps(db, bot.id);
        if (query.format === 'recorder') return { status: 200, body: exportRecording(steps, bot) };
        return { status: 200, body: toListView(steps) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/steps/import',
        operationId: 'importRecording',
        tag: 'Steps',
        summary:
          'Replace the steps with a Chrome DevTools Recorder recording (regenerates the generated script); ' +
          'a recording with a step that cannot run (400 invalid_recording) changes nothing',
        description:
          'The recording’s `credentials` bind recorded `change` steps to a credential’s field: the imported ' +
          '`fill` takes its value from the credential, and the recorded text is dropped.',
        permission: 'write',
        params: BotParams,
        body: RecordingSchema,
        bodyLimitBytes: MAX_RECORDING_BYTES,
        load: { bot: botToChange },
        responses: {
          200: { description: 'The new steps, and what was skipped', schema: ImportResponseSchema },
          403: BOT_LOGIN_FORBIDDEN,
        },
      },
      async ({ auth, bot, body }) => {
        const imported = importRecording(body, { targetUrl: bot.targetUrl });
        const steps = indexSteps(imported.steps);
        requireAdminToAttach(auth, loginsNamed(null, credentialReferencesOf(steps)));
        // The import's only credential fills are the bound ones: checked where the recording names them.
        await checkCredentialReferences(db, auth.organizationId, credentialReferencesOfBindings(body.credentials));
        await replaceStepsAndScript(db, bot.id, steps, generateScript(steps));
        return { status: 200, body: { ...toListView(await loadSteps(db, bot.id)), warnings: imported.warnings } };
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/bots/:botId/steps',
        operationId: 'replaceSteps',
        tag: 'Steps',
        summary: 'Replace all recorded steps (regenerates the bot’s generated script)',
        permission: 'write',
        params: BotParams,
        body: PutStepsSchema,
        load: { bot: botToChange },
        responses: { 200: { description: 'The new steps', schema: StepsResponseSchema }, 403: BOT_LOGIN_FORBIDDEN },
      },
      async ({ auth, bot, body }) => {
        const steps = indexSteps(body.steps);
        requireAdminToAttach(auth, loginsNamed(null, credentialReferencesOf(steps)));
        await checkStepCredentials(db, auth.organizationId, steps);
        await replaceStepsAndScript(db, bot.id, steps, generateScript(steps));
        return { status: 200, body: toListView(await loadSteps(db, bot.id)) };
      },
    ),
  ];
}
