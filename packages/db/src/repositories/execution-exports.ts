import { preparedStatement, queryPrepared } from '../prepared-statement';
import type { Db } from './db-handle';

/** One completed run's extracted data, as an export reads it. */
export interface CompletedExtract {
  id: string;
  completedAt: Date;
  extractedData: unknown;
}

/** Where an export page starts: strictly after this (completedAt, id). */
export interface ExtractCursor {
  completedAt: Date;
  id: string;
}

export interface ExtractPageQuery {
  /** completedAt at or after (inclusive); every run when omitted. */
  from?: Date;
  /** completedAt before (exclusive); every run when omitted. */
  to?: Date;
  /** The last row of the previous page; the first page when omitted. */
  after?: ExtractCursor;
  /** Most rows in the page. */
  limit: number;
  /**
   * Most bytes of stored data in the page (at least one row is always returned): a run's data
   * may run to MAX_EXECUTION_OUTPUT_BYTES, so a page of 500 such rows must not be read at once.
   */
  maxBytes: number;
}

/*
 * A keyset page, oldest first by (completedAt, id): one short statement per page, no cursor held
 * open between them, so it works behind a transaction pooler (PgBouncer) and costs the same on
 * the last page as on the first. The lower bound is the row comparison alone: the first page
 * starts after (from, ''), which keeps `from` inclusive since every id sorts after ''. The
 * (botId, status, completedAt) index serves it (EXPLAIN in docs/results-export.md).
 *
 * The window sums each row's stored size (pg_column_size: what the row holds, compressed or
 * TOASTed, read without decompressing) and keeps the rows whose predecessors stay under the byte
 * budget, so a page of large documents stops early instead of loading hundreds of megabytes.
 */
const PAGE_OF_COMPLETED_EXTRACTS = preparedStatement(
  `SELECT id, "completedAt", "extractedData" FROM (
     SELECT id, "completedAt", "extractedData",
            sum(pg_column_size("extractedData")) OVER (ORDER BY "completedAt", id ROWS UNBOUNDED PRECEDING)
              - pg_column_size("extractedData") AS "bytesBefore"
       FROM (SELECT id, "completedAt", "extractedData" FROM "Execution"
              WHERE "botId" = $1 AND status = 'completed' AND "extractedData" IS NOT NULL
                AND ("completedAt", id) > ($2::timestamptz, $3::text) AND "completedAt" < $4::timestamptz
              ORDER BY "completedAt", id
              LIMIT $5::int) AS page
   ) AS sized
   WHERE "bytesBefore" < $6::bigint
   ORDER BY "completedAt", id`,
);

/**
 * A page of the bot's completed runs that produced data, oldest first. The caller checked the bot
 * is the caller's organization's. Runs that completed without data (action bots) are not listed.
 */
export function pageCompletedExtracts(db: Db, botId: string, query: ExtractPageQuery): Promise<CompletedExtract[]> {
  const start = query.after ?? { completedAt: query.from ?? '-infinity', id: '' };
  return queryPrepared<CompletedExtract>(db, PAGE_OF_COMPLETED_EXTRACTS, [
    botId,
    start.completedAt,
    start.id,
    query.to ?? 'infinity',
    query.limit,
    query.maxBytes,
  ]);
}
