import { indexSteps, listOf, PutStepsSchema, StepSchema } from '@botfleet/core';
import { loadSteps, replaceSteps, saveGeneratedScript } from '@botfleet/db';
import { generateScript } from '@botfleet/runner';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { requireBot } from '../services/find-bot';
import { BotParams } from './path-params';

const StepsResponseSchema = listOf(StepSchema);

export function stepRoutes({ db }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/bots/:botId/steps',
        tag: 'Steps',
        summary: 'The bot’s recorded steps, ordered by index',
        permission: 'read',
        params: BotParams,
        responses: { 200: { description: 'The steps', schema: StepsResponseSchema } },
      },
      async ({ auth, params }) => {
        await requireBot(db, auth.organizationId, params.botId);
        return { status: 200, body: { data: await loadSteps(db, params.botId) } };
      },
    ),
    defineRoute(
      {
        method: 'put',
        path: '/bots/:botId/steps',
        tag: 'Steps',
        summary: 'Replace all recorded steps (regenerates the bot’s generated script)',
        permission: 'write',
        params: BotParams,
        body: PutStepsSchema,
        responses: { 200: { description: 'The new steps', schema: StepsResponseSchema } },
      },
      async ({ auth, params, body }) => {
        await requireBot(db, auth.organizationId, params.botId);
        const steps = indexSteps(body.steps);
        await db.$transaction(async (tx) => {
          await replaceSteps(tx, params.botId, steps);
          await saveGeneratedScript(tx, params.botId, generateScript(steps));
        });
        return { status: 200, body: { data: await loadSteps(db, params.botId) } };
      },
    ),
  ];
}
