import { notFound } from '@botfleet/core';
import { findBot, type Db } from '@botfleet/db';

/** The bot, if it belongs to the caller's organization; otherwise a 404 that leaks nothing. */
export async function requireBot(db: Db, organizationId: string, botId: string) {
  const bot = await findBot(db, organizationId, botId);
  if (!bot) throw notFound('Bot');
  return bot;
}
