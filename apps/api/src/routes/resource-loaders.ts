import { notFound } from '@botfleet/core';
import {
  findBot,
  findBotForTrigger,
  findExecution,
  findExecutionSummary,
  findScript,
  type Bot,
  type BotForTrigger,
  type Execution,
  type ExecutionSummary,
  type Script,
} from '@botfleet/db';
import type { ResourceLoader } from '../http/route';

/*
 * The resources a path names, as the caller may see them. Each answers the same 404 whether the
 * resource does not exist or belongs to another organization, so ids leak nothing. A route names
 * them in `load` (e.g. `load: { bot: botOfCaller }`) and receives them typed in its handler.
 */

/** The bot of `:botId`. */
export const botOfCaller: ResourceLoader<{ botId: string }, Bot> = async ({ db, auth, params }) => {
  const bot = await findBot(db, auth.organizationId, params.botId);
  if (!bot) throw notFound('Bot');
  return bot;
};

/** The bot of `:botId` as a trigger needs it (status and declared parameters), in one query. */
export const botToTrigger: ResourceLoader<{ botId: string }, BotForTrigger> = async ({ db, auth, params }) => {
  const bot = await findBotForTrigger(db, auth.organizationId, params.botId);
  if (!bot) throw notFound('Bot');
  return bot;
};

/** The script `:scriptId` of the bot `:botId`; load the bot first so its 404 speaks first. */
export const scriptOfCaller: ResourceLoader<{ botId: string; scriptId: string }, Script> = async ({
  db,
  auth,
  params,
}) => {
  const script = await findScript(db, auth.organizationId, params.botId, params.scriptId);
  if (!script) throw notFound('Script');
  return script;
};

/** The execution of `:executionId`, without its extracted data (the routes that show it load it). */
export const executionOfCaller: ResourceLoader<{ executionId: string }, ExecutionSummary> = async ({
  db,
  auth,
  params,
}) => {
  const execution = await findExecutionSummary(db, auth.organizationId, params.executionId);
  if (!execution) throw notFound('Execution');
  return execution;
};

/** The execution of `:executionId` with its extracted data. */
export const executionWithDataOfCaller: ResourceLoader<{ executionId: string }, Execution> = async ({
  db,
  auth,
  params,
}) => {
  const execution = await findExecution(db, auth.organizationId, params.executionId);
  if (!execution) throw notFound('Execution');
  return execution;
};
