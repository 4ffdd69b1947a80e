import { newId, type LogLevel, type LogSource, type StepResult } from '@botfleet/core';
import { Prisma, type Execution } from '../generated/prisma/client';
import type { Db } from './db-handle';
import { createDeliveryForCompletedExecution } from './deliveries';
import { inTransaction } from './in-transaction';

/*
 * State moves only forward: pending -> running -> completed | failed | cancelled. Every write a
 * worker makes names the attempt it claimed, so a worker that lost its job (stalled, killed,
 * partitioned) can never overwrite what a newer attempt or a cancel wrote.
 */

export interface ClaimedExecution {
  id: string;
  botId: string;
  organizationId: string;
  attempt: number;
  params: Record<string, unknown>;
  startedAt: Date;
}

/**
 * Claims a pending execution, or re-claims a running one whose worker died, bumping the attempt.
 * Null when it already ended, was cancelled or deleted. Output of an earlier attempt is cleared.
 */
export async function claimExecution(db: Db, executionId: string): Promise<ClaimedExecution | null> {
  const rows = await db.$queryRaw<ClaimedExecution[]>`
    UPDATE "Execution"
       SET status = 'running', attempt = attempt + 1,
           "startedAt" = COALESCE("startedAt", now()), "updatedAt" = now()
     WHERE id = ${executionId} AND status IN ('pending', 'running')
     RETURNING id, "botId", "organizationId", attempt, params, "startedAt"`;
  const claimed = rows[0];
  if (!claimed) return null;
  if (claimed.attempt > 1) {
    await db.stepOutput.deleteMany({ where: { executionId } });
    await db.artifact.deleteMany({ where: { executionId } });
  }
  return claimed;
}

export type StepOutputRecord = StepResult;

export interface LogRecord {
  timestamp: number;
  level: LogLevel;
  source: LogSource;
  message: string;
}

export interface ArtifactRecord {
  id: string;
  kind: string;
  contentType: string;
  data: Buffer;
}

export interface ProgressBatch {
  steps: StepOutputRecord[];
  logs: LogRecord[];
  artifacts: ArtifactRecord[];
}

const json = (value: unknown) =>
  value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);

/** Writes buffered step outputs, logs and artifacts in three statements. */
export async function writeProgress(db: Db, executionId: string, batch: ProgressBatch): Promise<void> {
  if (batch.steps.length > 0) {
    await db.stepOutput.createMany({
      data: batch.steps.map((s) => ({
        id: newId('stp'),
        executionId,
        index: s.index,
        action: s.action,
        status: s.status,
        data: json(s.data),
        error: s.error,
        startedAt: new Date(s.startedAt),
        durationMs: Math.round(s.durationMs),
      })),
      skipDuplicates: true,
    });
  }
  if (batch.logs.length > 0) {
    await db.executionLog.createMany({
      data: batch.logs.map((l) => ({
        executionId,
        timestamp: new Date(l.timestamp),
        level: l.level,
        source: l.source,
        message: l.message,
      })),
    });
  }
  if (batch.artifacts.length > 0) {
    await db.artifact.createMany({
      data: batch.artifacts.map((a) => ({
        id: a.id,
        executionId,
        kind: a.kind,
        contentType: a.contentType,
        data: new Uint8Array(a.data),
      })),
    });
  }
}

export type ExecutionOutcome =
  { status: 'completed'; data: unknown } | { status: 'failed'; error: string; stepIndex: number | null };

/**
 * Ends the execution if this attempt still owns it. Returns false when it does not (cancelled,
 * re-claimed or deleted), in which case nothing is written.
 */
export async function finishExecution(
  db: Db,
  executionId: string,
  attempt: number,
  outcome: ExecutionOutcome,
): Promise<boolean> {
  const data =
    outcome.status === 'completed'
      ? { status: 'completed' as const, extractedData: json(outcome.data), completedAt: new Date() }
      : {
          status: 'failed' as const,
          error: outcome.error,
          failedStepIndex: outcome.stepIndex,
          completedAt: new Date(),
        };
  const { count } = await db.execution.updateMany({ where: { id: executionId, attempt, status: 'running' }, data });
  return count === 1;
}

/** The end of one attempt: its final state and the output it has not written yet. */
export interface ExecutionAttemptEnd {
  executionId: string;
  botId: string;
  attempt: number;
  /** A completion's `data` is null when the run produced nothing worth publishing. */
  outcome: ExecutionOutcome;
  progress: ProgressBatch;
}

/**
 * Ends the attempt in one transaction: the final state, the rest of its output and (when it
 * completed with data and the bot has a webhook) the delivery row. When this attempt no longer
 * owns the execution, `finished` is false and nothing is written, except that a cancelled run
 * still keeps what it logged and did up to the cancel; a superseded attempt (re-claimed by
 * another worker) keeps nothing, the newer attempt owns the output.
 */
export async function endExecutionAttempt(
  db: Db,
  end: ExecutionAttemptEnd,
): Promise<{ finished: boolean; deliveryId: string | null }> {
  return inTransaction(db, async (tx) => {
    if (!(await finishExecution(tx, end.executionId, end.attempt, end.outcome))) {
      const row = await findExecutionState(tx, end.executionId);
      if (row?.status === 'cancelled' && row.attempt === end.attempt)
        await writeProgress(tx, end.executionId, end.progress);
      return { finished: false, deliveryId: null };
    }
    await writeProgress(tx, end.executionId, end.progress);
    const data = end.outcome.status === 'completed' ? end.outcome.data : null;
    const delivery =
      data !== null
        ? await createDeliveryForCompletedExecution(tx, {
            executionId: end.executionId,
            botId: end.botId,
            extractedData: data,
          })
        : null;
    return { finished: true, deliveryId: delivery?.id ?? null };
  });
}

/** Fails an execution that is not final yet, whoever holds it (lost workers, exhausted retries). */
export async function failUnfinishedExecution(db: Db, executionId: string, error: string): Promise<boolean> {
  const { count } = await db.execution.updateMany({
    where: { id: executionId, status: { in: ['pending', 'running'] } },
    data: { status: 'failed', error, completedAt: new Date() },
  });
  return count === 1;
}

/**
 * Cancels a pending or running execution of this organization: the cancelled row, or null when
 * there was nothing to cancel (it already ended, or is not this organization's).
 */
export async function cancelExecution(db: Db, organizationId: string, executionId: string): Promise<Execution | null> {
  const rows = await db.execution.updateManyAndReturn({
    where: { id: executionId, organizationId, status: { in: ['pending', 'running'] } },
    data: { status: 'cancelled', completedAt: new Date() },
  });
  return rows[0] ?? null;
}

export const newArtifactId = () => newId('art');

/** Unfinished executions untouched since `before`, oldest first: what the worker's sweep checks. */
export function listStaleUnfinishedExecutions(db: Db, before: Date, limit: number, organizationId?: string) {
  return db.execution.findMany({
    where: {
      status: { in: ['pending', 'running'] },
      updatedAt: { lt: before },
      ...(organizationId ? { organizationId } : {}),
    },
    select: { id: true, status: true },
    orderBy: { updatedAt: 'asc' },
    take: limit,
  });
}

/** The status and attempt number of an execution, or null when it is gone. */
export function findExecutionState(db: Db, executionId: string) {
  return db.execution.findUnique({ where: { id: executionId }, select: { status: true, attempt: true } });
}
