import type { Bot, PrismaClient } from '@botfleet/db';
import { findBotVersionForRun, type StoredManifest } from '@botfleet/db';
import { runSandboxedScript, runSteps, type ExecutionProgram } from '@botfleet/runner';

export interface LoadedBot {
  bot: Bot;
  /** The version's manifest: its capabilities, parameters and session settings are what the run uses. */
  manifest: StoredManifest;
  program: ExecutionProgram;
  /** What the program is, for the logs. */
  description: string;
}

/**
 * The bot and what to run on the page, from the version the run was triggered with (not the
 * bot's current definition, which may have changed since): the version's active handwritten
 * script (sandboxed) when there is one, else its recorded steps. Both get the version's
 * capabilities, deadline and session. Webhook deliveries are not the program's: they go to the
 * bot's current webhook (packages/engine).
 */
export async function loadProgram(db: PrismaClient, botId: string, botVersion: number): Promise<LoadedBot | null> {
  const found = await findBotVersionForRun(db, botId, botVersion);
  if (!found) return null;
  const { bot, version } = found;
  const { manifest, steps } = version;
  const label = `version ${version.version}`;
  const script = version.scripts.find((candidate) => candidate.origin === 'handwritten' && candidate.active);
  if (script) {
    return {
      bot,
      manifest,
      program: (page, session) => runSandboxedScript({ source: script.source, page, session }),
      description: `handwritten script "${script.name}" (${script.id}) of ${label}`,
    };
  }
  return {
    bot,
    manifest,
    program: (page, session) => runSteps(page, steps, session),
    description: `${steps.length} recorded step(s) of ${label}`,
  };
}
