import type { Bot, PrismaClient } from '@botfleet/db';
import { loadManifest, loadSteps, type StoredManifest } from '@botfleet/db';
import { runSteps, type ExecutionProgram } from '@botfleet/runner';

export interface LoadedBot {
  bot: Bot;
  manifest: StoredManifest;
  program: ExecutionProgram;
  /** What the program is, for the logs. */
  description: string;
}

/** The bot, its manifest, and what to run on the page: its recorded steps. */
export async function loadProgram(db: PrismaClient, botId: string): Promise<LoadedBot | null> {
  const bot = await db.bot.findUnique({ where: { id: botId } });
  if (!bot) return null;
  const [manifest, steps] = await Promise.all([loadManifest(db, botId), loadSteps(db, botId)]);
  return {
    bot,
    manifest,
    program: (page, session) => runSteps(page, steps, session),
    description: `${steps.length} recorded step(s)`,
  };
}
