import { newId, type KeysetCursor } from '@botfleet/core';
import { Prisma } from '../generated/prisma/client';
import type { Db } from './db-handle';
import { afterCursor, NEWEST_FIRST, toPage } from './keyset';

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

export async function findExecution(db: Db, organizationId: string, executionId: string) {
  return db.execution.findFirst({ where: { id: executionId, organizationId } });
}

/** The execution created for this idempotency key within the window, if any. */
export async function findByIdempotencyKey(db: Db, organizationId: string, key: string, since: Date) {
  return db.execution.findFirst({
    where: { organizationId, idempotencyKey: key, createdAt: { gte: since } },
    orderBy: { createdAt: 'desc' },
  });
}

export async function listExecutions(db: Db, botId: string, page: { limit: number; cursor?: KeysetCursor }) {
  const rows = await db.execution.findMany({
    where: { botId, ...afterCursor(page.cursor) },
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
