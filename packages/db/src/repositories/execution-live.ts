import type { ExecutionLog, ExecutionStatus, StepOutput } from '../generated/prisma/client';
import { preparedStatement, queryPrepared } from '../prepared-statement';
import type { Db } from './db-handle';
import { NAMED_SUMMARY_COLUMNS, type NamedExecutionSummary } from './executions';

/*
 * Reads behind the live event streams (docs/live-runs.md). A stream's position in a run is its
 * attempt, the steps it has (the next step index) and the last log row it has: each read takes
 * what lies past such a position, in one statement so the row, its steps and its logs come from
 * one snapshot (a run seen ended has all its output, which its end wrote in the same commit).
 */

/** Where a reader stands in a run: steps are the attempt's (a new attempt starts again at 0). */
export interface RunPosition {
  attempt: number;
  /** The next step index the reader lacks. */
  nextStep: number;
  /** The id of the last log row the reader has ('0': none). */
  lastLogId: bigint;
}

export interface RunProgress {
  execution: NamedExecutionSummary;
  /** Where the run stands in the database as of this read, whatever position was asked from. */
  position: RunPosition;
  /** The steps of the row's attempt from the position's (from 0 when the attempt changed), by index. */
  steps: StepOutput[];
  /** Log rows after the position's, by id, at most `logLimit`. */
  logs: ExecutionLog[];
}

interface ProgressRow extends NamedExecutionSummary {
  lastStep: number | null;
  lastLog: string | null;
  steps: (Omit<StepOutput, 'startedAt'> & { startedAt: string })[];
  logs: (Omit<ExecutionLog, 'id' | 'timestamp'> & { id: string; timestamp: string })[];
}

// $1 execution, $2-$4 the position, $5 the log limit; $6-$8 an upper bound (null: none), used
// when a stream joins a watch and must stop where the watch stands.
const READ_RUN_PROGRESS = preparedStatement(
  `SELECT e.*,
     COALESCE((SELECT json_agg(s ORDER BY s.index) FROM "StepOutput" s
                WHERE s."executionId" = e.id
                  AND s.index >= CASE WHEN e.attempt = $2::int THEN $3::int ELSE 0 END
                  AND ($6::int IS NULL OR (e.attempt = $6::int AND s.index < $7::int))), '[]') AS steps,
     COALESCE((SELECT json_agg(l ORDER BY l.id) FROM (
                SELECT l.id::text AS id, l."executionId", l.timestamp, l.level, l.source, l.message, l.attempt
                  FROM "ExecutionLog" l
                 WHERE l."executionId" = e.id AND l.id > $4::bigint AND ($8::bigint IS NULL OR l.id <= $8::bigint)
                 ORDER BY l.id LIMIT $5::int) l), '[]') AS logs,
     (SELECT max(s.index) FROM "StepOutput" s WHERE s."executionId" = e.id) AS "lastStep",
     (SELECT max(l.id)::text FROM "ExecutionLog" l WHERE l."executionId" = e.id) AS "lastLog"
     FROM (SELECT ${NAMED_SUMMARY_COLUMNS} FROM "Execution" WHERE id = $1) e`,
);

/**
 * What the run holds past `from`, up to `upTo` when given (steps only while the row is still at
 * that attempt); null when the run is gone. One statement, whatever the run's size up to the limit.
 */
export async function readRunProgress(
  db: Db,
  executionId: string,
  from: RunPosition,
  options: { logLimit: number; upTo?: RunPosition },
): Promise<RunProgress | null> {
  const { upTo } = options;
  const [row] = await queryPrepared<ProgressRow>(db, READ_RUN_PROGRESS, [
    executionId,
    from.attempt,
    from.nextStep,
    from.lastLogId.toString(),
    options.logLimit,
    upTo?.attempt ?? null,
    upTo?.nextStep ?? null,
    upTo ? upTo.lastLogId.toString() : null,
  ]);
  if (!row) return null;
  const { steps, logs, lastStep, lastLog, ...execution } = row;
  return {
    execution,
    position: {
      attempt: execution.attempt,
      nextStep: lastStep === null ? 0 : lastStep + 1,
      lastLogId: lastLog === null ? 0n : BigInt(lastLog),
    },
    steps: steps.map((s) => ({ ...s, startedAt: new Date(s.startedAt) })),
    logs: logs.map((l) => ({ ...l, id: BigInt(l.id), timestamp: new Date(l.timestamp) })),
  };
}

/** What the organization stream's resume reads: a run's status as of its last change. */
export interface ExecutionChangeRow {
  id: string;
  botId: string;
  status: ExecutionStatus;
  attempt: number;
  updatedAt: Date;
}

/**
 * The organization's runs changed at or after `since` (matching the filters), oldest change
 * first, at most `limit`: the catch-up of an organization stream that resumes.
 */
export function listExecutionsChangedSince(
  db: Db,
  organizationId: string,
  since: Date,
  filter: { botId?: string; status?: ExecutionStatus[] },
  limit: number,
): Promise<ExecutionChangeRow[]> {
  return db.execution.findMany({
    where: {
      organizationId,
      updatedAt: { gte: since },
      ...(filter.botId ? { botId: filter.botId } : {}),
      ...(filter.status?.length ? { status: { in: filter.status } } : {}),
    },
    select: { id: true, botId: true, status: true, attempt: true, updatedAt: true },
    orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
    take: limit,
  });
}
