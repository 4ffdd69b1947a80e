import {
  newId,
  WebhookAuthSchema,
  WebhookEventSchema,
  type KeysetCursor,
  type WebhookAuth,
  type WebhookEvent,
} from '@botfleet/core';
import type { DeliveryStatus } from '../generated/prisma/enums';
import type { Db } from './db-handle';
import { preparedStatement, queryPrepared } from '../prepared-statement';
import { afterCursor, NEWEST_FIRST, toPage } from './keyset';

/*
 * A webhook delivery is a row; Redis only holds the job that will make its next attempt. Every
 * write here is conditional on the row's current state, so duplicate jobs (a sweeper re-enqueue
 * racing a late job, a stalled job run twice) can never record the same attempt twice.
 */

/** A claimed delivery with what its attempt needs. Secrets stay sealed; the caller opens them. */
export interface DeliveryForAttempt {
  id: string;
  /** The bot's organization: credentials and tokens are never shared across organizations. */
  organizationId: string;
  executionId: string;
  botId: string;
  event: WebhookEvent;
  url: string;
  auth: WebhookAuth;
  body: string;
  attemptCount: number;
  /** The first attempt of the current series (a redelivery starts a new one); retry delays count from it. */
  seriesFirstAttempt: number;
  /** The due time the claim replaced with its lease (what releaseDeliveryClaim puts back). */
  dueAt: Date | null;
  /** The lease the claim wrote. */
  leaseUntil: Date;
  /**
   * From the manifest as of the claim's own statement (not snapshotted): a rotated secret or
   * password applies to the next attempt claimed after the change committed.
   */
  loginUrl: string | null;
  username: string | null;
  webhookSecretEnc: string | null;
  webhookPasswordEnc: string | null;
  /** The webhook's state now: a disabled webhook sends nothing more. */
  webhookDisabledAt: Date | null;
  webhookFailingSince: Date | null;
}

export interface DeliveryClaim {
  deliveryIds: readonly string[];
  /** Only deliveries due by then are taken (now, plus a tolerance for clocks that disagree). */
  dueBy: Date;
  /** Pushes nextAttemptAt this far out while the attempt runs, so the sweeper and other jobs leave it alone. */
  leaseUntil: Date;
}

/*
 * Claim and load in one statement. The inner SELECT locks the due pending rows, skipping rows
 * another transaction holds (another claimant, or the row's own record in flight): whoever holds
 * the lock owns the attempt, and after it commits the row is leased or moved on, so nothing is
 * lost by skipping it. The manifest columns are read by the same statement, so a manifest PUT that
 * committed before the claim is always seen.
 */
const CLAIM_DUE_DELIVERIES = preparedStatement(`
  WITH due AS (
    SELECT d."id", d."nextAttemptAt" FROM unnest($1::text[]) AS wanted("id")
      JOIN "WebhookDelivery" d ON d."id" = wanted."id"
     WHERE d."status" = 'pending' AND COALESCE(d."nextAttemptAt", '-infinity') <= $2::timestamptz
     FOR UPDATE OF d SKIP LOCKED
  ), claimed AS (
    UPDATE "WebhookDelivery" d SET "nextAttemptAt" = $3::timestamptz
      FROM due WHERE d."id" = due."id"
    RETURNING d."id", d."executionId", d."botId", d."event", d."url", d."auth", d."body", d."attemptCount",
              d."seriesFirstAttempt", due."nextAttemptAt" AS "dueAt"
  )
  SELECT c.*, b."organizationId", m."webhook"->>'loginUrl' AS "loginUrl", m."webhook"->>'username' AS "username",
         m."webhookSecretEnc", m."webhookPasswordEnc", m."webhookDisabledAt", m."webhookFailingSince"
    FROM claimed c JOIN "Bot" b ON b."id" = c."botId" LEFT JOIN "Manifest" m ON m."botId" = c."botId"`);

type ClaimedRow = Omit<DeliveryForAttempt, 'event' | 'auth' | 'leaseUntil'> & { event: string; auth: string };

/**
 * Takes the next attempt of each of the deliveries that is pending and due, in one statement, and
 * returns them with what their attempts need. A delivery left out was not pending, not due (another
 * attempt holds its lease), or is being claimed or recorded by someone else: the caller sends
 * nothing for it. If the claimant dies, the lease expires and the sweeper retries.
 */
export async function claimDueDeliveries(db: Db, claim: DeliveryClaim): Promise<DeliveryForAttempt[]> {
  if (claim.deliveryIds.length === 0) return [];
  const rows = await queryPrepared<ClaimedRow>(db, CLAIM_DUE_DELIVERIES, [
    claim.deliveryIds,
    claim.dueBy,
    claim.leaseUntil,
  ]);
  return rows.map((row) => ({
    ...row,
    event: WebhookEventSchema.parse(row.event),
    auth: WebhookAuthSchema.parse(row.auth),
    leaseUntil: claim.leaseUntil,
  }));
}

/**
 * Gives a claimed attempt back untouched (due again as it was), when the claimant chose not to
 * make it after all (its destination is busy). False when the lease is no longer the claimant's.
 */
export async function releaseDeliveryClaim(db: Db, delivery: DeliveryForAttempt): Promise<boolean> {
  const { count } = await db.webhookDelivery.updateMany({
    where: {
      id: delivery.id,
      status: 'pending',
      attemptCount: delivery.attemptCount,
      nextAttemptAt: delivery.leaseUntil,
    },
    data: { nextAttemptAt: delivery.dueAt },
  });
  return count === 1;
}

/** What the delivery becomes after an attempt. */
export type DeliveryOutcome =
  { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date };

export interface DeliveryAttemptRecord {
  deliveryId: string;
  /** 1 for the first attempt; must be attemptCount + 1 of the row or nothing is written. */
  number: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  outcome: DeliveryOutcome;
}

/*
 * Every attempt of a batch in one statement (the update feeds the insert), so one round trip and
 * an implicit transaction instead of BEGIN, UPDATE, INSERT, COMMIT per attempt. Each update's row
 * lock serialises competing writers of that delivery; the loser re-reads attemptCount, matches
 * nothing and so inserts nothing. Rows are locked in id order, so two batches cannot deadlock.
 */
const RECORD_DELIVERY_ATTEMPTS = preparedStatement(`
  WITH attempt AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::timestamptz[], $5::int[], $6::int[], $7::text[],
                         $8::"DeliveryStatus"[], $9::timestamptz[], $10::timestamptz[])
      AS a("attemptId", "deliveryId", "number", "startedAt", "durationMs", "statusCode", "error",
           "status", "nextAttemptAt", "completedAt")
  ), locked AS (
    SELECT d."id" FROM "WebhookDelivery" d JOIN attempt a ON a."deliveryId" = d."id"
     WHERE d."status" = 'pending' AND d."attemptCount" = a."number" - 1
     ORDER BY d."id" FOR UPDATE OF d
  ), moved AS (
    UPDATE "WebhookDelivery" d
       SET "status" = a."status", "attemptCount" = a."number", "lastError" = a."error",
           "nextAttemptAt" = a."nextAttemptAt", "completedAt" = a."completedAt", "updatedAt" = now()
      FROM attempt a, locked l
     WHERE d."id" = a."deliveryId" AND l."id" = d."id" AND d."status" = 'pending' AND d."attemptCount" = a."number" - 1
    RETURNING d."id"
  )
  INSERT INTO "DeliveryAttempt" ("id", "deliveryId", "number", "startedAt", "durationMs", "statusCode", "error")
  SELECT a."attemptId", a."deliveryId", a."number", a."startedAt", a."durationMs", a."statusCode", a."error"
    FROM attempt a JOIN moved m ON m."id" = a."deliveryId"
  RETURNING "deliveryId"`);

/**
 * Writes each attempt row and moves its delivery on, atomically, for a batch of attempts (of
 * distinct deliveries). Returns the ids of the deliveries recorded; one left out was written
 * nothing because its attempt number was already recorded or it is no longer pending.
 */
export async function recordDeliveryAttempts(db: Db, records: readonly DeliveryAttemptRecord[]): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const now = new Date();
  const rows = await queryPrepared<{ deliveryId: string }>(db, RECORD_DELIVERY_ATTEMPTS, [
    records.map(() => newId('dat')),
    records.map((r) => r.deliveryId),
    records.map((r) => r.number),
    records.map((r) => r.startedAt),
    records.map((r) => Math.max(0, Math.round(r.durationMs))),
    records.map((r) => r.statusCode),
    records.map((r) => r.error),
    records.map((r) => r.outcome.status),
    records.map((r) => (r.outcome.status === 'pending' ? r.outcome.nextAttemptAt : null)),
    records.map((r) => (r.outcome.status === 'pending' ? null : now)),
  ]);
  return new Set(rows.map((row) => row.deliveryId));
}

/** recordDeliveryAttempts of one attempt: false when nothing was written. */
export async function recordDeliveryAttempt(db: Db, record: DeliveryAttemptRecord): Promise<boolean> {
  return (await recordDeliveryAttempts(db, [record])).has(record.deliveryId);
}

/** Every delivery of an execution with its attempts, oldest first. */
export async function listDeliveriesForExecution(db: Db, executionId: string) {
  return db.webhookDelivery.findMany({
    where: { executionId },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    include: { attempts: { orderBy: { number: 'asc' } } },
  });
}

/** A page of the bot's deliveries with their attempts, newest first, optionally of one status. */
export async function listDeliveriesForBot(
  db: Db,
  botId: string,
  page: { limit: number; cursor?: KeysetCursor; status?: DeliveryStatus },
) {
  const rows = await db.webhookDelivery.findMany({
    where: { botId, ...(page.status ? { status: page.status } : {}), ...afterCursor(page.cursor) },
    orderBy: NEWEST_FIRST,
    take: page.limit + 1,
    include: { attempts: { orderBy: { number: 'asc' } } },
  });
  return toPage(rows, page.limit);
}

/** A delivery with its attempts, if its bot belongs to the organization. */
export async function findDeliveryOfOrganization(db: Db, organizationId: string, deliveryId: string) {
  return db.webhookDelivery.findFirst({
    where: { id: deliveryId, bot: { organizationId } },
    include: { attempts: { orderBy: { number: 'asc' } } },
  });
}

/**
 * Starts a new attempt series of a finished delivery: same id (so the same `webhook-id`) and same
 * body, due now, its retry delays counted afresh. Returns the number of the attempt to enqueue, or
 * null when the delivery is still pending (its current series owns it) or gone.
 */
export async function restartDelivery(db: Db, deliveryId: string): Promise<number | null> {
  const rows = await db.$queryRaw<{ next: number }[]>`
    UPDATE "WebhookDelivery"
       SET "status" = 'pending', "seriesFirstAttempt" = "attemptCount" + 1, "nextAttemptAt" = now(),
           "completedAt" = NULL, "lastError" = NULL, "updatedAt" = now()
     WHERE "id" = ${deliveryId} AND "status" <> 'pending'
    RETURNING "attemptCount" + 1 AS next`;
  return rows[0]?.next ?? null;
}

/**
 * Pending deliveries whose next attempt was due before `dueBefore` (now minus a grace period):
 * their job should have run by now, so it may have been lost from Redis. `organizationId` narrows
 * the search for tests and benchmarks that share a database with other runs.
 */
export async function findOverdueDeliveries(
  db: Db,
  options: { dueBefore: Date; limit: number; organizationId?: string },
) {
  return db.webhookDelivery.findMany({
    where: {
      status: 'pending',
      OR: [{ nextAttemptAt: { lte: options.dueBefore } }, { nextAttemptAt: null }],
      ...(options.organizationId ? { execution: { organizationId: options.organizationId } } : {}),
    },
    orderBy: { nextAttemptAt: 'asc' },
    take: options.limit,
    select: { id: true, attemptCount: true, nextAttemptAt: true },
  });
}
