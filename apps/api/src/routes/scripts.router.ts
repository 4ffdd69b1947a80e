import { AppError } from '@botfleet/core';
import { createHandwrittenScript, deleteScript, listScripts, updateScript } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { validationError } from '../http/validation-issues';
import { toListView } from '../views/collection.view';
import { toScriptView } from '../views/script.view';
import { BOT_LOGIN_FORBIDDEN, listOf } from '../contracts/common.contract';
import { BotParams, ScriptParams } from '../contracts/path-params';
import { botOfCaller, botToChange, scriptOfCaller } from './resource-loaders';
import { CreateScriptSchema, ScriptSchema, UpdateScriptSchema } from '../contracts/scripts.contract';

/** The module form the sandbox runs; anything else would only fail later, at run time. */
function checkModuleForm(source: string | undefined): void {
  if (source !== undefined && !/\bexport\s+default\b/.test(source)) {
    throw validationError(
      [
        {
          path: 'source',
          message: 'must be a module whose default export is async ({ page, params, log, step }) => data',
        },
      ],
      'body',
    );
  }
}

export function scriptRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/scripts',
        operationId: 'listScripts',
        tag: 'Scripts',
        summary: 'The bot’s scripts: the one generated from its steps and any handwritten ones',
        permission: 'read',
        params: BotParams,
        load: { bot: botOfCaller },
        responses: { 200: { description: 'The scripts', schema: listOf(ScriptSchema) } },
      },
      async ({ bot }) => ({ status: 200, body: toListView((await listScripts(db, bot.id)).map(toScriptView)) }),
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/scripts',
        operationId: 'createScript',
        tag: 'Scripts',
        summary: 'Add a handwritten script; with active: true it runs instead of the steps',
        permission: 'write',
        params: BotParams,
        body: CreateScriptSchema,
        load: { bot: botToChange },
        responses: { 201: { description: 'The script', schema: ScriptSchema }, 403: BOT_LOGIN_FORBIDDEN },
      },
      async ({ bot, body }) => {
        checkModuleForm(body.source);
        const script = await createHandwrittenScript(db, bot.id, body);
        return { status: 201, body: toScriptView(script) };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/bots/:botId/scripts/:scriptId',
        operationId: 'updateScript',
        tag: 'Scripts',
        summary: 'Rename, edit or (de)activate a script; activating one deactivates the others',
        permission: 'write',
        params: ScriptParams,
        body: UpdateScriptSchema,
        load: { bot: botToChange, script: scriptOfCaller },
        responses: {
          200: { description: 'The script', schema: ScriptSchema },
          403: BOT_LOGIN_FORBIDDEN,
          409: { description: 'A generated script’s source or name cannot be edited' },
        },
      },
      async ({ bot, script, body }) => {
        if (script.origin === 'generated' && (body.source !== undefined || body.name !== undefined)) {
          throw new AppError(
            'conflict',
            'The generated script is rewritten from the recorded steps; add a handwritten script instead',
          );
        }
        checkModuleForm(body.source);
        const updated = await updateScript(db, bot.id, script.id, body);
        return { status: 200, body: toScriptView(updated) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/bots/:botId/scripts/:scriptId',
        operationId: 'deleteScript',
        tag: 'Scripts',
        summary: 'Delete a handwritten script',
        permission: 'write',
        params: ScriptParams,
        load: { bot: botToChange, script: scriptOfCaller },
        responses: {
          204: { description: 'Deleted' },
          403: BOT_LOGIN_FORBIDDEN,
          409: { description: 'The generated script cannot be deleted' },
        },
      },
      async ({ bot, script }) => {
        if (script.origin === 'generated')
          throw new AppError('conflict', 'The generated script follows the recorded steps and cannot be deleted');
        await deleteScript(db, bot.id, script.id);
        return { status: 204 };
      },
    ),
  ];
}
