import { AppError, CreateScriptSchema, listOf, notFound, ScriptSchema, UpdateScriptSchema } from '@botfleet/core';
import { createHandwrittenScript, deleteScript, findScript, listScripts, updateScript, type Db } from '@botfleet/db';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { validationError } from '../http/validation-issues';
import { requireBot } from '../services/find-bot';
import { toScriptView } from '../views/script.view';
import { BotParams, resourceId } from './path-params';

const ScriptParams = BotParams.extend({ scriptId: resourceId('scr', 'Script') });

/** The module form the sandbox runs; anything else would only fail later, at run time. */
function checkModuleForm(source: string | undefined): void {
  if (source !== undefined && !/\bexport\s+default\b/.test(source)) {
    throw validationError([{ path: 'source', message: 'must be a module whose default export is async ({ page, params, log, step }) => data' }], 'body');
  }
}

async function requireScript(db: Db, botId: string, scriptId: string) {
  const script = await findScript(db, botId, scriptId);
  if (!script) throw notFound('Script');
  return script;
}

export function scriptRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/scripts',
        tag: 'Scripts',
        summary: 'The bot’s scripts: the one generated from its steps and any handwritten ones',
        permission: 'read',
        params: BotParams,
        responses: { 200: { description: 'The scripts', schema: listOf(ScriptSchema) } },
      },
      async ({ auth, params }) => {
        await requireBot(db, auth.organizationId, params.botId);
        return { status: 200, body: { data: (await listScripts(db, params.botId)).map(toScriptView) } };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/bots/:botId/scripts',
        tag: 'Scripts',
        summary: 'Add a handwritten script; with active: true it runs instead of the steps',
        permission: 'write',
        params: BotParams,
        body: CreateScriptSchema,
        responses: { 201: { description: 'The script', schema: ScriptSchema } },
      },
      async ({ auth, params, body }) => {
        await requireBot(db, auth.organizationId, params.botId);
        checkModuleForm(body.source);
        const script = await db.$transaction((tx) => createHandwrittenScript(tx, params.botId, body));
        return { status: 201, body: toScriptView(script) };
      },
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/bots/:botId/scripts/:scriptId',
        tag: 'Scripts',
        summary: 'Rename, edit or (de)activate a script; activating one deactivates the others',
        permission: 'write',
        params: ScriptParams,
        body: UpdateScriptSchema,
        responses: { 200: { description: 'The script', schema: ScriptSchema }, 409: { description: 'A generated script’s source or name cannot be edited' } },
      },
      async ({ auth, params, body }) => {
        await requireBot(db, auth.organizationId, params.botId);
        const script = await requireScript(db, params.botId, params.scriptId);
        if (script.origin === 'generated' && (body.source !== undefined || body.name !== undefined)) {
          throw new AppError('conflict', 'The generated script is rewritten from the recorded steps; add a handwritten script instead');
        }
        checkModuleForm(body.source);
        const updated = await db.$transaction((tx) => updateScript(tx, params.botId, script.id, body));
        return { status: 200, body: toScriptView(updated) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/bots/:botId/scripts/:scriptId',
        tag: 'Scripts',
        summary: 'Delete a handwritten script',
        permission: 'write',
        params: ScriptParams,
        responses: { 204: { description: 'Deleted' }, 409: { description: 'The generated script cannot be deleted' } },
      },
      async ({ auth, params }) => {
        await requireBot(db, auth.organizationId, params.botId);
        const script = await requireScript(db, params.botId, params.scriptId);
        if (script.origin === 'generated') throw new AppError('conflict', 'The generated script follows the recorded steps and cannot be deleted');
        await db.$transaction((tx) => deleteScript(tx, params.botId, script.id));
        return { status: 204 };
      },
    ),
  ];
}
