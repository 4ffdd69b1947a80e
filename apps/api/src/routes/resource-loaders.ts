import { notFound } from '@botfleet/core';
import {
  findBot,
  findBotListing,
  findBotForTrigger,
  recentBotForTrigger,
  findCredential,
  findDeliveryOfOrganization,
  findExecution,
  findExecutionSummary,
  findProfile,
  findScript,
  type Bot,
  type BotListing,
  type BotForTrigger,
  type Credential,
  type Execution,
  type NamedExecutionSummary,
  type ProfileWithOrigins,
  type Script,
} from '@botfleet/db';
import type { LoaderInput, ResourceLoader } from '../http/route';
import { requireAdminToChangeBot } from '../services/bot-login-guard';

/*
 * The resources a path names, as the caller may see them. Each answers the same 404 whether the
 * resource does not exist or belongs to another organization, so ids leak nothing. A route names
 * them in `load` (e.g. `load: { bot: botOfCaller }`) and receives them typed in its handler.
 */

/** A loader from a lookup scoped to the caller's organization, which answers null for a 404. */
function loaderOf<P, T>(what: string, find: (input: LoaderInput<P>) => Promise<T | null>): ResourceLoader<P, T> {
  return async (input) => {
    const found = await find(input);
    if (!found) throw notFound(what);
    return found;
  };
}

type BotPath = { botId: string };
type DeliveryWithAttempts = NonNullable<Awaited<ReturnType<typeof findDeliveryOfOrganization>>>;
type ExecutionPath = { executionId: string };

/** The bot of `:botId`. */
export const botOfCaller = loaderOf<BotPath, Bot>('Bot', ({ db, auth, params }) =>
  findBot(db, auth.organizationId, params.botId),
);

/**
 * The bot of `:botId`, for a route that changes what it runs (its steps, scripts or manifest):
 * answers 403 to a key below admin while the bot holds a login (services/bot-login-guard.ts),
 * after the 404 of a bot that is not the caller's.
 */
export const botToChange: ResourceLoader<BotPath, Bot> = async (input) => {
  const bot = await botOfCaller(input);
  await requireAdminToChangeBot(input.db, input.auth, bot.id);
  return bot;
};

/** The bot of `:botId` as GET /bots lists it: with its last run and schedule. */
export const botListingOfCaller = loaderOf<BotPath, BotListing>('Bot', ({ db, auth, params }) =>
  findBotListing(db, auth.organizationId, params.botId),
);

/**
 * The bot of `:botId` as a trigger needs it (status, version and declared parameters), possibly
 * from this process's memo: only for routes whose writes the engine guards by the bot's version
 * (triggerExecution, triggerExecutionBatch), which judge again on the bot as it is now.
 */
export const botToTrigger = loaderOf<BotPath, BotForTrigger>('Bot', ({ db, auth, params }) =>
  recentBotForTrigger(db, auth.organizationId, params.botId),
);

/** The same as the database holds it now, for a route that keeps what it judges (a schedule's params). */
export const botToSchedule = loaderOf<BotPath, BotForTrigger>('Bot', ({ db, auth, params }) =>
  findBotForTrigger(db, auth.organizationId, params.botId),
);

/** The script `:scriptId` of the bot `:botId`; load the bot first so its 404 speaks first. */
export const scriptOfCaller = loaderOf<BotPath & { scriptId: string }, Script>('Script', ({ db, auth, params }) =>
  findScript(db, auth.organizationId, params.botId, params.scriptId),
);

/** The execution of `:executionId`, without its extracted data (the routes that show it load it). */
export const executionOfCaller = loaderOf<ExecutionPath, NamedExecutionSummary>('Execution', ({ db, auth, params }) =>
  findExecutionSummary(db, auth.organizationId, params.executionId),
);

/** The webhook delivery of `:deliveryId`, with its attempts. */
export const deliveryOfCaller = loaderOf<{ deliveryId: string }, DeliveryWithAttempts>(
  'Delivery',
  ({ db, auth, params }) => findDeliveryOfOrganization(db, auth.organizationId, params.deliveryId),
);

/** The execution of `:executionId` with its extracted data. */
export const executionWithDataOfCaller = loaderOf<ExecutionPath, Execution>('Execution', ({ db, auth, params }) =>
  findExecution(db, auth.organizationId, params.executionId),
);

/** The browser profile of `:profileId`, with the summary of its latest state. */
export const profileOfCaller = loaderOf<{ profileId: string }, ProfileWithOrigins>('Profile', ({ db, auth, params }) =>
  findProfile(db, auth.organizationId, params.profileId),
);

/** The credential of `:credentialId`, sealed fields included (its view shows only whether they are set). */
export const credentialOfCaller = loaderOf<{ credentialId: string }, Credential>('Credential', ({ db, auth, params }) =>
  findCredential(db, auth.organizationId, params.credentialId),
);
