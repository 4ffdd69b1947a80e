import { indexSteps, listOf, PutStepsSchema, StepSchema } from '@botfleet/core';
import { loadSteps, replaceStepsAndScript } from '@botfleet/db';
import { generateScript } from '@botfleet/runner';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { toListView } from '../views/collection.view';
import { BotParams } from './path-params';
import { botOfCaller } from './resource-loaders';

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
        load: { bot: botOfCaller },
        responses: { 200: { description: 'The steps', schema: StepsResponseSchema } },
      },
      async ({ bot }) => ({ status: 200, body: toListView(await loadSteps(db, bot.id)) }),
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
        load: { bot: botOfCaller },
        responses: { 200: { description: 'The new steps', schema: StepsResponseSchema } },
      },
      async ({ bot, body }) => {
        const steps = indexSteps(body.steps);
        await replaceStepsAndScript(db, bot.id, steps, generateScript(steps));
        return { status: 200, body: toListView(await loadSteps(db, bot.id)) };
      },
    ),
  ];
}
