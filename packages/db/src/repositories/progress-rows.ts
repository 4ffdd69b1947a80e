import { newId } from '@botfleet/core';
import { Prisma } from '../generated/prisma/client';
import type { Db } from './db-handle';
import type { ProgressBatch } from './progress-batch';

/*
 * The INSERTs of a run's progress, unfenced. Deliberately not exported from @botfleet/db: a run's
 * writes go through writeProgress or endExecutionAttempt, which hold the execution's row for the
 * attempt before they call this (docs/runs.md). The test kit uses it to put rows in place.
 */

export const jsonColumn = (value: unknown) =>
  value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue);

/** Inserts a batch's step outputs, logs and artifacts: at most three statements. */
export async function insertProgressRows(db: Db, executionId: string, batch: ProgressBatch): Promise<void> {
  if (batch.steps.length > 0) {
    await db.stepOutput.createMany({
      data: batch.steps.map((s) => ({
        id: newId('stp'),
        executionId,
        index: s.index,
        action: s.action,
        status: s.status,
        data: jsonColumn(s.data),
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
        attempt: l.attempt ?? 1,
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
        data: a.data === null ? null : new Uint8Array(a.data),
        storageKey: a.storageKey,
        bytes: a.bytes,
        stepIndex: a.stepIndex ?? null,
        sealed: a.sealed ?? false,
      })),
    });
  }
}
