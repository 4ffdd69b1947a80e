import { stableDataHash, type DataChange } from '@botfleet/core';
import type { Db } from './db-handle';

/**
 * Compares a completing run's data (already narrowed by the webhook's dataPath) with the previous
 * completed run of the same bot that had data. Runs inside the completion's transaction; the
 * advisory lock serialises completions of one bot, so two runs finishing together cannot both
 * compare against the same predecessor. Runs completed before change detection existed have no
 * hash and are not compared against, so the first run after it counts as changed.
 */
export async function detectDataChange(
  tx: Db,
  input: { botId: string; executionId: string; narrowedData: unknown },
): Promise<DataChange & { hash: string }> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`data-change:${input.botId}`}, 0))`;
  const hash = stableDataHash(input.narrowedData);
  const previous = await tx.execution.findFirst({
    where: { botId: input.botId, status: 'completed', dataHash: { not: null }, id: { not: input.executionId } },
    orderBy: [{ completedAt: 'desc' }, { id: 'desc' }],
    select: { id: true, dataHash: true },
  });
  return { hash, changed: previous?.dataHash !== hash, previousExecutionId: previous?.id ?? null };
}

/** Stores the result of detectDataChange on the execution. */
export async function saveDataChange(
  tx: Db,
  executionId: string,
  change: { hash: string; changed: boolean },
): Promise<void> {
  await tx.execution.update({
    where: { id: executionId },
    data: { dataHash: change.hash, dataChanged: change.changed },
  });
}
