import { newId, type CreateBotInput, type Step } from '@botfleet/core';
import type { Prisma, RecordedStep } from '../generated/prisma/client';
import { recordBotVersion } from './bot-definition';
import { createBot } from './bots';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';
import { saveGeneratedScript } from './scripts';

/** The bot's recorded steps in order. */
export async function loadSteps(db: Db, botId: string): Promise<Step[]> {
  return toSteps(await db.recordedStep.findMany({ where: { botId }, orderBy: { index: 'asc' } }));
}

/** Stored step rows (in index order) as steps. */
export function toSteps(rows: RecordedStep[]): Step[] {
  return rows.map((row) => ({ ...(row.definition as object), index: row.index }) as Step);
}

/** Replaces all of the bot's steps (call inside a transaction with whatever depends on them). */
export async function replaceSteps(db: Db, botId: string, steps: Step[]): Promise<void> {
  await db.recordedStep.deleteMany({ where: { botId } });
  if (steps.length === 0) return;
  await db.recordedStep.createMany({
    data: steps.map((step) => ({
      id: newId('rst'),
      botId,
      index: step.index,
      action: step.action,
      definition: step as unknown as Prisma.InputJsonObject,
    })),
  });
}

/** Writes the steps and the script generated from them (the caller records the version). */
async function writeStepsAndScript(db: Db, botId: string, steps: Step[], generatedSource: string): Promise<void> {
  await replaceSteps(db, botId, steps);
  await saveGeneratedScript(db, botId, generatedSource);
}

/** Replaces the bot's steps and the script generated from them, atomically, as a new version. */
export async function replaceStepsAndScript(
  db: Db,
  botId: string,
  steps: Step[],
  generatedSource: string,
): Promise<void> {
  await inTransaction(db, async (tx) => {
    await writeStepsAndScript(tx, botId, steps, generatedSource);
    await recordBotVersion(tx, botId);
  });
}

/**
 * Creates a bot with its steps and the script generated from them, atomically (a bot from a
 * recording): its version 1 holds the recording's steps.
 */
export async function createBotWithSteps(
  db: Db,
  organizationId: string,
  input: CreateBotInput,
  steps: Step[],
  generatedSource: string,
) {
  return createBot(db, organizationId, input, (tx, botId) => writeStepsAndScript(tx, botId, steps, generatedSource));
}
