import type { Logger } from '@botfleet/core';
import type { ArtifactStore } from './artifact-store';

/** How a removal that failed is logged: at which level, saying whose artifacts they were. */
export interface ArtifactDeletionFailureLog {
  logger: Logger | undefined;
  level: 'warn' | 'error';
  /** Says whose artifacts could not be removed. */
  message: string;
  /** Fields naming their owner (botId, executionId, ...); the error's message is added as `err`. */
  fields: Record<string, unknown>;
}

/**
 * Deletes the stored content of artifacts whose rows are gone or will never be written (a deleted
 * bot's runs, expired runs, an earlier or a superseded attempt's uploads): the one way artifact
 * content is deleted. Best effort, never thrown: no row names those objects any more, so there is
 * nothing to retry from, and an object left behind costs storage, not a wrong answer; a bucket
 * lifecycle rule sweeps such leftovers (docs/operations.md, "Artifact storage"). Content kept in
 * its row (a null key) went with the row; with no key left, or no store, no request is made.
 */
export async function deleteArtifactContent(
  store: ArtifactStore | undefined,
  storageKeys: readonly (string | null)[],
  onFailure: ArtifactDeletionFailureLog,
): Promise<void> {
  const keys = storageKeys.filter((key): key is string => key !== null);
  if (!store || keys.length === 0) return;
  try {
    await store.remove(keys);
  } catch (error) {
    const err = error instanceof Error ? error.message : String(error);
    onFailure.logger?.[onFailure.level]({ ...onFailure.fields, err }, onFailure.message);
  }
}
