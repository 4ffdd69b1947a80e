import { Prisma } from '../generated/prisma/client';
import type { Db } from './db-handle';

/** Executions one call deletes at most: small enough that each statement holds its locks briefly. */
export const RETENTION_BATCH_SIZE = 500;

export interface ExpiredExecutionsQuery {
  /** Executions that finished before this instant are expired. */
  before: Date;
  /** Executions deleted by this call at most (default RETENTION_BATCH_SIZE). */
  batchSize?: number;
  /**
   * Only this organization's executions. Tests share one database: unscoped, one test file's
   * retention would delete another's rows.
   */
  organizationId?: string;
}

/**
 * Deletes one batch of expired executions, oldest finish first, and returns how many it deleted
 * with the storage keys of their artifacts kept in S3 (ARTIFACT_STORE=s3), which the caller
 * removes from the bucket: the rows are gone, so nothing else would ever name those objects.
 *
 * Expired means finished (completed, failed or cancelled) before `before`, by `completedAt`: it
 * is the moment the run ended (set by every final write, null while pending or running), so a run
 * that waited or ran long is kept for the full period after it ended, and `Execution_completedAt_idx`
 * serves both the range and the order. A run whose webhook delivery is still pending (retries can
 * outlast a short retention) is kept until the delivery ends.
 *
 * Step outputs, logs, artifacts, deliveries and their attempts go with the execution through
 * their foreign keys (ON DELETE CASCADE, each backed by an index on the execution or delivery id),
 * in the same statement. One statement is one short transaction; SKIP LOCKED lets any number of
 * processes run this at once without waiting on each other or on a writer holding a row.
 *
 * The keys are read in the same statement: every part of it sees the rows as they were before it
 * began, so the artifacts its cascade deletes are still there to be read, and no artifact of a
 * deleted run can be missed or named twice by a concurrent pass.
 *
 * `id = ANY (ARRAY(...))` rather than `id IN (...)`: queries are named prepared statements, and
 * the generic plan, not knowing the LIMIT, would join the batch to a sequential scan of the whole
 * table; an array makes the outer delete a primary-key lookup in every plan.
 */
export async function deleteExpiredExecutions(db: Db, query: ExpiredExecutionsQuery): Promise<DeletedExecutions> {
  const batchSize = query.batchSize ?? RETENTION_BATCH_SIZE;
  const scope =
    query.organizationId === undefined ? Prisma.empty : Prisma.sql`AND e."organizationId" = ${query.organizationId}`;
  const [result] = await db.$queryRaw<DeletedExecutions[]>`
    WITH gone AS (
      DELETE FROM "Execution"
       WHERE id = ANY (ARRAY(SELECT e.id
                               FROM "Execution" e
                              WHERE e."completedAt" < ${query.before}::timestamptz
                                AND e.status IN ('completed', 'failed', 'cancelled')
                                ${scope}
                                AND NOT EXISTS (SELECT 1 FROM "WebhookDelivery" d
                                                 WHERE d."executionId" = e.id AND d.status = 'pending')
                              ORDER BY e."completedAt"
                              LIMIT ${batchSize}
                                FOR UPDATE SKIP LOCKED))
      RETURNING id)
    SELECT (SELECT count(*)::int FROM gone) AS deleted, ${storageKeysOf(Prisma.sql`(SELECT id FROM gone)`)} AS "storageKeys"`;
  return result ?? { deleted: 0, storageKeys: [] };
}

/** What deleting rows that own artifacts left to remove from the artifact store. */
export interface DeletedExecutions {
  deleted: number;
  /** The S3 keys of the deleted runs' artifacts (none under ARTIFACT_STORE=postgres). */
  storageKeys: string[];
}

/** An array of the S3 keys of the artifacts of the executions `executionIds` (a subquery) selects. */
export function storageKeysOf(executionIds: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`ARRAY(SELECT a."storageKey" FROM "Artifact" a
                           WHERE a."executionId" = ANY (ARRAY${executionIds})
                             AND a."storageKey" IS NOT NULL)`;
}
