import { newId, type KeysetCursor } from '@botfleet/core';
import { Prisma, type Execution } from '../generated/prisma/client';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';
import { afterCursor, NEWEST_FIRST, toPage } from './keyset';

/**
 * Every column but the extracted data, which can run to megabytes and which most reads of an
 * execution (its state, its logs, its failure) never show.
 */
const EXECUTION_SUMMARY = {
  id: true,
  botId: true,
  organizationId: true,
  status: true,
  trigger: true,
  params: true,
  scheduledFor: true,
  attempt: true,
  error: true,
  failedStepIndex: true,
  createdAt: true,
  startedAt: true,
  completedAt: true,
} as const satisfies Prisma.ExecutionSelect;

export type ExecutionSummary = Prisma.ExecutionGetPayload<{ select: typeof EXECUTION_SUMMARY }>;

/** The execution without its extracted data, if it belongs to the organization. */
export interface NewExecution {
  botId: string;
  organizationId: string;
  trigger: 'api' | 'schedule';
  params: Record<string, unknown>;
  idempotencyKey?: string;
  /** The schedule tick this run belongs to (unique per bot, so a tick never fires twice). */
  scheduledFor?: Date;
}

/** Writes the pending execution row. Enqueueing its job comes after, with the row id as job id. */
export async function createExecution(db: Db, input: NewExecution) {
  return db.execution.create({
    data: {
      id: newId('exe'),
      botId: input.botId,
      organizationId: input.organizationId,
      trigger: input.trigger,
      params: input.params as Prisma.InputJsonObject,
      idempotencyKey: input.idempotencyKey ?? null,
      scheduledFor: input.scheduledFor ?? null,
    },
  });
}

/** A run that already completed with this data, as a worker leaves it. */
export interface CompletedExecution {
  botId: string;
  organizationId: string;
  extractedData: unknown;
}

/**
 * Writes an execution that is already completed, for fixtures and benchmarks that stand in for
 * a worker's run. Real runs go pending -> running -> completed through the lifecycle functions.
 */
export async function createCompletedExecution(db: Db, input: CompletedExecution) {
  const now = new Date();
  return db.execution.create({
    data: {
      id: newId('exe'),
      botId: input.botId,
      organizationId: input.organizationId,
      status: 'completed',
      startedAt: now,
      completedAt: now,
      extractedData:
        input.extractedData === null || input.extractedData === undefined
          ? Prisma.DbNull
          : (input.extractedData as Prisma.InputJsonValue),
    },
  });
}

/**
 * Creates the execution unless this organization used the idempotency key since `since`, in which
 * case it returns the execution created for that key. An advisory lock on (organization, key)
 * serialises concurrent requests with the same key, so exactly one of them creates the execution.
 */
export async function createExecutionOnce(
  db: Db,
  input: NewExecution & { idempotencyKey: string },
  since: Date,
): Promise<{ execution: Execution; created: boolean }> {
  return inTransaction(db, async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${input.organizationId}:${input.idempotencyKey}`}, 0))`;
    const existing = await findByIdempotencyKey(tx, input.organizationId, input.idempotencyKey, since);
    if (existing) return { execution: existing, created: false };
    return { execution: await createExecution(tx, input), created: true };
  });
}

export async function findExecution(db: Db, organizationId: string, executionId: string) {
  return db.execution.findFirst({ where: { id: executionId, organizationId } });
}

export async function findExecutionSummary(
  db: Db,
  organizationId: string,
  executionId: string,
): Promise<ExecutionSummary | null> {
  return db.execution.findFirst({ where: { id: executionId, organizationId }, select: EXECUTION_SUMMARY });
}

/** The execution created for this idempotency key within the window, if any. */
export async function findByIdempotencyKey(db: Db, organizationId: string, key: string, since: Date) {
  return db.execution.findFirst({
    where: { organizationId, idempotencyKey: key, createdAt: { gte: since } },
    orderBy: { createdAt: 'desc' },
  });
}

/** A page of the bot's executions, newest first, without their extracted data. */
export async function listExecutions(db: Db, botId: string, page: { limit: number; cursor?: KeysetCursor }) {
  const rows = await db.execution.findMany({
    where: { botId, ...afterCursor(page.cursor) },
    select: EXECUTION_SUMMARY,
    orderBy: NEWEST_FIRST,
    take: page.limit + 1,
  });
  return toPage(rows, page.limit);
}

export async function latestExecution(db: Db, botId: string) {
  return db.execution.findFirst({ where: { botId }, orderBy: NEWEST_FIRST });
}

/** The newest completed execution that produced data. */
export async function latestExtract(db: Db, botId: string) {
  return db.execution.findFirst({
    where: { botId, status: 'completed', NOT: { extractedData: { equals: Prisma.DbNull } } },
    orderBy: [{ completedAt: 'desc' }, { id: 'desc' }],
  });
}
