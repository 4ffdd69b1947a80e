import { deleteArtifactContent, type ArtifactStore } from '@botfleet/artifacts';
import type { Logger } from '@botfleet/core';
import { deleteExpiredExecutions, RETENTION_BATCH_SIZE, type Db } from '@botfleet/db';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPassOptions {
  /** EXECUTION_RETENTION_DAYS: runs that finished longer ago than this are deleted. */
  retentionDays: number;
  /** Executions per delete statement (default RETENTION_BATCH_SIZE). */
  batchSize?: number;
  /** Only this organization's executions (tests share one database). */
  organizationId?: string;
  /** Aborted on stop: the pass ends after the batch in flight. */
  signal: AbortSignal;
  /** Where the deleted runs' artifacts lie (ARTIFACT_STORE): their S3 objects are removed after each batch. */
  artifactStore?: ArtifactStore;
  /** Says which objects could not be removed. */
  logger?: Logger;
  now?: Date;
}

/**
 * Deletes expired executions one batch (one short statement) at a time until a batch comes back
 * short, and returns how many it deleted. A short batch can also mean another process holds the
 * rest (SKIP LOCKED): that process deletes them, or the next pass does.
 *
 * Each batch's S3 objects are removed once its rows are gone (deleteArtifactContent): a removal
 * that fails is logged and the pass goes on, since keeping expired rows would cost more than an
 * object left behind.
 */
export async function deleteExpiredExecutionsPass(db: Db, options: RetentionPassOptions): Promise<number> {
  const batchSize = options.batchSize ?? RETENTION_BATCH_SIZE;
  // One cutoff for the whole pass, so a backlog drains to a fixed point instead of chasing the clock.
  const before = new Date((options.now ?? new Date()).getTime() - options.retentionDays * DAY_MS);
  let total = 0;
  while (!options.signal.aborted) {
    const { deleted, storageKeys } = await deleteExpiredExecutions(db, {
      before,
      batchSize,
      organizationId: options.organizationId,
    });
    total += deleted;
    await deleteArtifactContent(options.artifactStore, storageKeys, {
      logger: options.logger,
      level: 'error',
      message: "expired executions' artifacts could not be removed from the artifact store",
      fields: { objects: storageKeys.length },
    });
    if (deleted < batchSize) break;
  }
  return total;
}
