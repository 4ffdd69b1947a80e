import type { Db } from './db-handle';

/*
 * What a run left behind, read back for the API: step outputs, logs and artifacts. Callers check
 * the execution belongs to the caller's organization first (these take its id as given).
 */

/** Most log lines one execution returns; a runaway script cannot make the answer unbounded. */
export const MAX_LOG_LINES = 10_000;

export function listStepOutputs(db: Db, executionId: string) {
  return db.stepOutput.findMany({ where: { executionId }, orderBy: { index: 'asc' } });
}

export function findStepOutput(db: Db, executionId: string, index: number) {
  return db.stepOutput.findUnique({ where: { executionId_index: { executionId, index } } });
}

export function listExecutionLogs(db: Db, executionId: string) {
  return db.executionLog.findMany({ where: { executionId }, orderBy: { id: 'asc' }, take: MAX_LOG_LINES });
}

/** The id of the screenshot taken when the execution failed (the latest, if retried), or null. */
export async function findFailureScreenshotId(db: Db, executionId: string): Promise<string | null> {
  const row = await db.artifact.findFirst({
    where: { executionId, kind: 'failure-screenshot' },
    select: { id: true },
    orderBy: { createdAt: 'desc' },
  });
  return row?.id ?? null;
}

export interface ArtifactSummary {
  id: string;
  kind: string;
  contentType: string;
  bytes: number;
  stepIndex: number | null;
  createdAt: Date;
}

/**
 * The artifacts of an execution, oldest first, without their data: the size is the row's `bytes`
 * (the content may live in the artifact store, not the row), so listing a run's traces and
 * downloads never loads them.
 */
export function listArtifacts(db: Db, executionId: string): Promise<ArtifactSummary[]> {
  return db.artifact.findMany({
    where: { executionId },
    select: { id: true, kind: true, contentType: true, bytes: true, stepIndex: true, createdAt: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

export function findArtifact(db: Db, artifactId: string) {
  return db.artifact.findUnique({ where: { id: artifactId } });
}

/** How long each step of these executions took, for profiling runs (benchmarks). */
export function listStepTimings(db: Db, executionIds: string[]) {
  return db.stepOutput.findMany({
    where: { executionId: { in: executionIds } },
    select: { index: true, durationMs: true },
  });
}

/** The log messages of these executions, in no particular order, for profiling runs (benchmarks). */
export function listLogMessages(db: Db, executionIds: string[]) {
  return db.executionLog.findMany({ where: { executionId: { in: executionIds } }, select: { message: true } });
}
