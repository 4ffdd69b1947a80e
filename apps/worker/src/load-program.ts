import type { Bot, PrismaClient } from '@botfleet/db';
import { findBotForRun, toSteps, toStoredManifest, type StoredManifest } from '@botfleet/db';
import { runSandboxedScript, runSteps, type ExecutionProgram } from '@botfleet/runner';

export interface LoadedBot {
  bot: Bot;
  manifest: StoredManifest;
  program: ExecutionProgram;
  /** What the program is, for the logs. */
  description: string;
}

/**
 * The bot, its manifest, and what to run on the page: the active handwritten script (sandboxed)
 * when there is one, else the recorded steps. Both get the same capabilities, deadline and session.
 */
export async function loadProgram(db: PrismaClient, botId: string): Promise<LoadedBot | null> {
  const found = await findBotForRun(db, botId);
  if (!found) return null;
  const { manifest: manifestRow, steps: stepRows, scripts, ...bot } = found;
  const manifest = toStoredManifest(manifestRow);
  const script = scripts[0];
  if (script) {
    return {
      bot,
      manifest,
      program: (page, session) => runSandboxedScript({ source: script.source, page, session }),
      description: `handwritten script "${script.name}" (${script.id})`,
    };
  }
  const steps = toSteps(stepRows);
  return {
    bot,
    manifest,
    program: (page, session) => runSteps(page, steps, session),
    description: `${steps.length} recorded step(s)`,
  };
}
