import { newId, selectDataPath, type ExecutionEnd, type RunOutcome } from '@botfleet/core';
import { Prisma, type Execution, type ExecutionStatus } from '../generated/prisma/client';
import { detectDataChange } from './data-changes';
import type { Db } from './db-handle';
import { createEventDeliveries } from './event-deliveries';
import { inTransaction } from './in-transaction';
import { loadManifest } from './manifests';
import type { ProgressBatch } from './progress-batch';
import { saveProfileVersion, type NewProfileVersion } from './profiles';
import { insertProgressRows, jsonColumn as json } from './progress-rows';

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
  /**
   * Claims so far that found the previous attempt unfinished (see claimExecution); the bot's
   * own try is `attempt - infraRetries`.
   */
  infraRetries: number;
  params: Record<string, unknown>;
  startedAt: Date;
  trigger: Execution['trigger'];
  /** The profile the run starts from and may save to (docs/sessions.md); null without one. */
  profileId: string | null;
  /** The bot's version when the run was triggered: the definition the run runs (bot-versions.ts). */
  botVersion: number;
  /**
   * Objects of the earlier attempts' artifacts in the artifact store (ARTIFACT_STORE=s3), whose
   * rows this claim deleted: the caller removes them from the bucket.
   */
  discardedStorageKeys: string[];
}

/**
 * Claims a pending execution, or re-claims a running one whose worker died, bumping the attempt.
 * Null when it already ended, was cancelled or deleted. Output of an earlier attempt is cleared.
 *
 * A row still `running` when it is claimed means the previous attempt never finished: its worker
 * was killed or lost its lock, or its browser failed and the job was put back. That claim also
 * counts an infrastructure retry, in the same UPDATE, so a crash at any point can neither lose
 * the count nor count twice. Every orderly hand-over (a bot retry, a shutdown hand-back) puts
 * the row back to `pending` first (requeueExecution) and is not counted.
 */
export async function claimExecution(db: Db, executionId: string): Promise<ClaimedExecution | null> {
  return claimIf(db, executionId, Prisma.sql`true`);
}

/*
 * Runs sharing a profile take turns, oldest first (by createdAt, then id), so each starts from
 * the state the previous one saved and no save is lost: a run may start only while no other run
 * of its profile is running and none older is pending. No lock is needed: of two runs claiming at
 * once, the newer sees the older pending (or already running) and waits, whichever commits first.
 * A run that waits stays pending and its job goes back to the delayed set (no worker slot held).
 */
const PROFILE_TURN = Prisma.sql`("Execution"."profileId" IS NULL OR NOT EXISTS (
  SELECT 1 FROM "Execution" other
   WHERE other."profileId" = "Execution"."profileId" AND other.id <> "Execution".id
     AND (other.status = 'running'
          OR (other.status = 'pending'
              AND (other."createdAt", other.id) < ("Execution"."createdAt", "Execution".id)))))`;

/**
 * The claim itself, made only if it is the run's profile's turn (PROFILE_TURN) and `condition`
 * (SQL on the execution's row) holds as well.
 */
async function claimIf(db: Db, executionId: string, condition: Prisma.Sql): Promise<ClaimedExecution | null> {
  const rows = await db.$queryRaw<ClaimedExecution[]>`
    UPDATE "Execution"
       SET status = 'running', attempt = attempt + 1,
           "infraRetries" = "infraRetries" + CASE WHEN status = 'running' THEN 1 ELSE 0 END,
           "startedAt" = COALESCE("startedAt", now()), "updatedAt" = now()
     WHERE id = ${executionId} AND status IN ('pending', 'running') AND ${PROFILE_TURN} AND ${condition}
     RETURNING id, "botId", "organizationId", attempt, "infraRetries", params, "startedAt", "trigger", "profileId", "botVersion"`;
  const claimed = rows[0];
  if (!claimed) return null;
  claimed.discardedStorageKeys = [];
  if (claimed.attempt > 1) {
    await db.stepOutput.deleteMany({ where: { executionId } });
    const discarded = await db.$queryRaw<{ storageKey: string | null }[]>`
      DELETE FROM "Artifact" WHERE "executionId" = ${executionId} RETURNING "storageKey"`;
    claimed.discardedStorageKeys = discarded.flatMap((a) => (a.storageKey === null ? [] : [a.storageKey]));
  }
  return claimed;
}

/**
 * An organization's running cap given its own value (`maxRunningExecutions`, null when the
 * operator set none); null: no cap. The rule and its default are the engine's (engine/caps.ts).
 */
export type RunningCapRule = (organizationMax: number | null) => number | null;

/**
 * Claims the execution as claimExecution does, unless its organization already has as many runs
 * going across the fleet as `capOf` allows it. Then nothing changes and it answers 'at-capacity';
 * it answers 'profile-busy' when another run of its profile goes first (PROFILE_TURN).
 *
 * When an organization without a value of its own has no cap (the common case) this is one
 * statement for it and takes no lock. Otherwise a per-organization advisory lock makes
 * count-and-claim atomic across every worker, so the cap holds exactly: the first statement takes
 * the lock and reads the organization's value, the second counts and claims. They cannot be one
 * statement: under READ COMMITTED a statement sees the rows committed before it began, so a count
 * in the locking statement could miss the claim that the previous holder of the lock committed
 * while this one waited.
 */
export async function claimExecutionWithinCap(
  db: Db,
  executionId: string,
  capOf: RunningCapRule,
): Promise<ClaimedExecution | null | 'at-capacity' | 'profile-busy'> {
  if (capOf(null) === null) {
    const claimed = await claimIf(
      db,
      executionId,
      Prisma.sql`(SELECT o."maxRunningExecutions" FROM "Organization" o WHERE o.id = "Execution"."organizationId") IS NULL`,
    );
    if (claimed) return claimed;
    // Not claimed: the organization has a cap of its own, its profile is busy, or the run ended;
    // the locked path tells.
  }
  return inTransaction(db, async (tx) => {
    const rows = await tx.$queryRaw<{ organizationId: string; organizationMax: number | null; profileTurn: boolean }[]>`
      SELECT e."organizationId", o."maxRunningExecutions" AS "organizationMax",
             (SELECT ${PROFILE_TURN} FROM "Execution" WHERE "Execution".id = e.id) AS "profileTurn",
             pg_advisory_xact_lock(hashtextextended('running:' || e."organizationId", 0))::text AS locked
        FROM "Execution" e JOIN "Organization" o ON o.id = e."organizationId"
       WHERE e.id = ${executionId} AND e.status IN ('pending', 'running')`;
    const row = rows[0];
    if (!row) return null;
    if (!row.profileTurn) return 'profile-busy';
    const cap = capOf(row.organizationMax);
    if (cap === null) return (await claimExecution(tx, executionId)) ?? 'profile-busy';
    const claimed = await claimIf(
      tx,
      executionId,
      Prisma.sql`(SELECT count(*) FROM "Execution" r
                   WHERE r."organizationId" = ${row.organizationId} AND r.status = 'running'
                     AND r.id <> ${executionId}) < ${cap}`,
    );
    // Checked claimable under the lock a moment ago: not claimed now means at the cap (or a
    // cancel landed in between, which the next claim will see).
    return claimed ?? 'at-capacity';
  });
}

/** The attempt a run's write speaks for. */
export interface AttemptFence {
  executionId: string;
  attempt: number;
}

/**
 * What became of a progress write: `owned` when the attempt still holds the run (the batch was
 * written), with `cancelled` when the run was cancelled meanwhile (its output up to the cancel is
 * kept, as endExecutionAttempt keeps it, and the run should stop); not `owned` when a newer
 * attempt took the run over or it ended otherwise: nothing was written.
 */
export type ProgressWrite = { owned: true; cancelled: boolean } | { owned: false };

/**
 * Writes buffered step outputs, logs and artifacts of one attempt, only while that attempt holds
 * the run (docs/runs.md): one transaction that first locks the execution's row FOR SHARE on the
 * condition `attempt = <mine> AND status IN ('running', 'cancelled')`, then inserts. The lock is
 * what makes the fence hold under a concurrent claim: the claim's UPDATE (attempt + 1) waits for
 * a write that locked first, and clears its rows afterwards; a write that comes second waits for
 * the claim and then finds the newer attempt (a locking read re-checks the newest row version),
 * so it inserts nothing. A plain EXISTS would read a snapshot and could insert after the claim's
 * DELETE. An empty batch is only that check, without a lock (nothing to write).
 */
export async function writeProgress(db: Db, fence: AttemptFence, batch: ProgressBatch): Promise<ProgressWrite> {
  const empty = batch.steps.length + batch.logs.length + batch.artifacts.length === 0;
  if (empty) return heldBy(db, fence, Prisma.empty);
  return inTransaction(db, async (tx) => {
    const held = await heldBy(tx, fence, Prisma.sql`FOR SHARE`);
    if (held.owned) await insertProgressRows(tx, fence.executionId, batch);
    return held;
  });
}

/** Whether `fence`'s attempt still holds its run (running, or cancelled while it ran); `lock` locks the row. */
async function heldBy(db: Db, fence: AttemptFence, lock: Prisma.Sql): Promise<ProgressWrite> {
  const rows = await db.$queryRaw<{ status: ExecutionStatus }[]>`
    SELECT status FROM "Execution"
     WHERE id = ${fence.executionId} AND attempt = ${fence.attempt} AND status IN ('running', 'cancelled')
     ${lock}`;
  const row = rows[0];
  return row ? { owned: true, cancelled: row.status === 'cancelled' } : { owned: false };
}

/**
 * Ends the execution if this attempt still owns it. Returns false when it does not (cancelled,
 * re-claimed or deleted), in which case nothing is written. A timed-out run is stored `failed`
 * with its error.
 */
export async function finishExecution(
  db: Db,
  executionId: string,
  attempt: number,
  outcome: RunOutcome,
  options: { at?: Date; change?: { hash: string; changed: boolean } } = {},
): Promise<boolean> {
  const completedAt = options.at ?? new Date();
  const data = ((): Prisma.ExecutionUpdateManyMutationInput => {
    switch (outcome.status) {
      case 'completed':
        return {
          status: 'completed',
          extractedData: json(outcome.data),
          completedAt,
          ...(options.change ? { dataHash: options.change.hash, dataChanged: options.change.changed } : {}),
        };
      case 'failed':
      case 'timed_out':
        return { status: 'failed', error: outcome.error, failedStepIndex: outcome.stepIndex, completedAt };
      case 'cancelled':
        return { status: 'cancelled', completedAt };
    }
  })();
  const { count } = await db.execution.updateMany({ where: { id: executionId, attempt, status: 'running' }, data });
  return count === 1;
}

/** The end of one attempt: its final state and the output it has not written yet. */
export interface ExecutionAttemptEnd {
  executionId: string;
  botId: string;
  attempt: number;
  /** A completion's `data` is null when the run produced nothing worth publishing. */
  outcome: RunOutcome;
  progress: ProgressBatch;
  /** For a failure with a screenshot: its signed URL, sent in the `execution.failed` event. */
  screenshotUrl?: string | null;
  /**
   * The run's end state for its profile (manifest `session.persist` allowing), saved as the
   * profile's next version in the same transaction: the next run of the profile, which cannot
   * start before this one has ended, always sees it.
   */
  profileState?: Omit<NewProfileVersion, 'source' | 'executionId'> | null;
}

/**
 * Ends the attempt in one transaction: the final state, whether its data changed since the
 * previous completed run (`dataChanged`), the rest of its output and the delivery rows of the
 * events the bot's webhook subscribes to. When this attempt no longer
 * owns the execution, `finished` is false and nothing is written, except that a cancelled run
 * still keeps what it logged and did up to the cancel; a superseded attempt (re-claimed by
 * another worker) keeps nothing, the newer attempt owns the output.
 */
export async function endExecutionAttempt(
  db: Db,
  end: ExecutionAttemptEnd,
): Promise<{ finished: boolean; deliveryIds: string[] }> {
  return inTransaction(db, async (tx) => {
    const manifest = await loadManifest(tx, end.botId);
    const { outcome } = end;
    const data = outcome.status === 'completed' ? outcome.data : null;
    // Compared before the final write so the hash lands in that same UPDATE; only a run that
    // produced data has something to compare.
    const change =
      data !== null && data !== undefined
        ? await detectDataChange(tx, {
            botId: end.botId,
            executionId: end.executionId,
            narrowedData: selectDataPath(data, manifest.webhook?.dataPath) ?? null,
          })
        : null;
    const endedAt = new Date();
    if (
      !(await finishExecution(tx, end.executionId, end.attempt, outcome, { at: endedAt, change: change ?? undefined }))
    ) {
      // Cancelled while this attempt ran: the cancelled state is final and this attempt's.
      await writeProgress(tx, end, end.progress);
      return { finished: false, deliveryIds: [] };
    }
    // Fenced by finishExecution's UPDATE: it holds the row, as this attempt's, until commit.
    await insertProgressRows(tx, end.executionId, end.progress);
    if (end.profileState)
      await saveProfileVersion(tx, { ...end.profileState, source: 'run', executionId: end.executionId });
    const ended = ((): ExecutionEnd => {
      switch (outcome.status) {
        case 'completed':
          return { status: 'completed', data, change };
        case 'failed':
        case 'timed_out':
          return { status: 'failed', error: outcome.error, screenshotUrl: end.screenshotUrl ?? null };
        case 'cancelled':
          return { status: 'cancelled' };
      }
    })();
    const facts = { executionId: end.executionId, botId: end.botId, endedAt };
    return { finished: true, deliveryIds: await createEventDeliveries(tx, facts, ended, manifest) };
  });
}

/**
 * Fails an execution that is not final yet, whoever holds it (lost workers, exhausted retries),
 * with its `execution.failed` delivery when subscribed (left for the delivery sweeper to send).
 * Returns the failed row (for the live streams' notice), or null when it had already ended.
 */
export async function failUnfinishedExecution(
  db: Db,
  executionId: string,
  error: string,
): Promise<{ id: string; organizationId: string; botId: string; attempt: number } | null> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx.execution.updateManyAndReturn({
      where: { id: executionId, status: { in: ['pending', 'running'] } },
      data: { status: 'failed', error, completedAt: new Date() },
      select: { id: true, organizationId: true, botId: true, attempt: true, completedAt: true },
    });
    if (!row) return null;
    const facts = { executionId: row.id, botId: row.botId, endedAt: row.completedAt ?? new Date() };
    await createEventDeliveries(tx, facts, { status: 'failed', error, screenshotUrl: null });
    return { id: row.id, organizationId: row.organizationId, botId: row.botId, attempt: row.attempt };
  });
}

/**
 * Cancels a pending or running execution of this organization: the cancelled row with the ids of
 * its `execution.cancelled` deliveries (to enqueue after this commits), or null when there was
 * nothing to cancel (it already ended, or is not this organization's).
 */
export async function cancelExecution(
  db: Db,
  organizationId: string,
  executionId: string,
): Promise<(Execution & { deliveryIds: string[] }) | null> {
  return inTransaction(db, async (tx) => {
    const [row] = await tx.execution.updateManyAndReturn({
      where: { id: executionId, organizationId, status: { in: ['pending', 'running'] } },
      data: { status: 'cancelled', completedAt: new Date() },
    });
    if (!row) return null;
    const facts = { executionId: row.id, botId: row.botId, endedAt: row.completedAt ?? new Date() };
    return { ...row, deliveryIds: await createEventDeliveries(tx, facts, { status: 'cancelled' }) };
  });
}

/**
 * Cancels every run of the bot in one of `statuses` (pending and/or running), in one transaction
 * with their `execution.cancelled` deliveries (to enqueue after this commits). Returns the ids.
 * A worker holding one of them cannot write its result: the row is final first.
 */
export async function cancelBotExecutions(
  db: Db,
  input: { organizationId: string; botId: string; statuses: ('pending' | 'running')[] },
): Promise<{ executions: { id: string; status: ExecutionStatus; attempt: number }[]; deliveryIds: string[] }> {
  return inTransaction(db, async (tx) => {
    const rows = await tx.execution.updateManyAndReturn({
      where: { botId: input.botId, organizationId: input.organizationId, status: { in: input.statuses } },
      data: { status: 'cancelled', completedAt: new Date() },
      select: { id: true, completedAt: true, status: true, attempt: true },
    });
    const deliveryIds: string[] = [];
    if (rows.length > 0) {
      const manifest = await loadManifest(tx, input.botId);
      for (const row of rows) {
        const facts = { executionId: row.id, botId: input.botId, endedAt: row.completedAt ?? new Date() };
        deliveryIds.push(...(await createEventDeliveries(tx, facts, { status: 'cancelled' }, manifest)));
      }
    }
    return { executions: rows.map(({ id, status, attempt }) => ({ id, status, attempt })), deliveryIds };
  });
}

/**
 * Puts this attempt's run back to `pending`, if this attempt still owns it: a bot failure to be
 * tried again, or a run handed back at shutdown. The next claim starts the next attempt (and
 * clears this one's step outputs and screenshots) without counting an infrastructure retry.
 * Returns the requeued row's owners (for the live streams' notice), or null when this attempt no
 * longer owns the run.
 */
export async function requeueExecution(
  db: Db,
  executionId: string,
  attempt: number,
): Promise<{ organizationId: string; botId: string } | null> {
  const [row] = await db.execution.updateManyAndReturn({
    where: { id: executionId, attempt, status: 'running' },
    data: { status: 'pending' },
    select: { organizationId: true, botId: true },
  });
  return row ?? null;
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
    select: { id: true, status: true, organizationId: true },
    orderBy: { updatedAt: 'asc' },
    take: limit,
  });
}

/** The status and attempt number of an execution, or null when it is gone. */
export function findExecutionState(db: Db, executionId: string) {
  return db.execution.findUnique({ where: { id: executionId }, select: { status: true, attempt: true } });
}
