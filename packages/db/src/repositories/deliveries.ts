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
import { afterCursor, NEWEST_FIRST, toPage } from './keyset';
import { loadManifest } from './manifests';

/*
 * A webhook delivery is a row; Redis only holds the job that will make its next attempt. Every
 * write here is conditional on the row's current state, so duplicate jobs (a sweeper re-enqueue
 * racing a late job, a stalled job run twice) can never record the same attempt twice.
 */

/** A delivery with what one attempt needs. Secrets stay sealed; the caller opens them. */
export interface DeliveryForAttempt {
  id: string;
  /** The bot's organization: credentials and tokens are never shared across organizations. */
  organizationId: string;
  executionId: string;
  botId: string;
  status: 'pending' | 'succeeded' | 'failed';
  event: WebhookEvent;
  url: string;
  auth: WebhookAuth;
  body: string;
  attemptCount: number;
  /** The first attempt of the current series (a redelivery starts a new one); retry delays count from it. */
  seriesFirstAttempt: number;
  nextAttemptAt: Date | null;
  /** From the manifest now (not snapshotted): a rotated secret or password applies to retries. */
  loginUrl: string | null;
  username: string | null;
  webhookSecretEnc: string | null;
  webhookPasswordEnc: string | null;
  /** The webhook's state now: a disabled webhook sends nothing more. */
  webhookDisabledAt: Date | null;
  webhookFailingSince: Date | null;
}

export async function findDeliveryForAttempt(db: Db, deliveryId: string): Promise<DeliveryForAttempt | null> {
  const row = await db.webhookDelivery.findUnique({
    where: { id: deliveryId },
    include: { bot: { select: { organizationId: true } } },
  });
  if (!row) return null;
  const manifest = await loadManifest(db, row.botId);
  return {
    id: row.id,
    organizationId: row.bot.organizationId,
    executionId: row.executionId,
    botId: row.botId,
    status: row.status,
    event: WebhookEventSchema.parse(row.event),
    url: row.url,
    auth: WebhookAuthSchema.parse(row.auth),
    body: row.body,
    attemptCount: row.attemptCount,
    seriesFirstAttempt: row.seriesFirstAttempt,
    nextAttemptAt: row.nextAttemptAt,
    loginUrl: manifest.webhook?.loginUrl ?? null,
    username: manifest.webhook?.username ?? null,
    webhookSecretEnc: manifest.webhookSecretEnc,
    webhookPasswordEnc: manifest.webhookPasswordEnc,
    webhookDisabledAt: manifest.webhookDisabledAt ?? null,
    webhookFailingSince: manifest.webhookFailingSince ?? null,
  };
}

export interface DeliveryClaim {
  deliveryId: string;
  /** The attemptCount and nextAttemptAt the caller read; the claim fails if either moved. */
  attemptCount: number;
  nextAttemptAt: Date | null;
  /** Pushes nextAttemptAt this far out while the attempt runs, so the sweeper leaves it alone. */
  leaseUntil: Date;
}

/**
 * Takes the next attempt of a pending delivery (compare-and-set on attemptCount and
 * nextAttemptAt). False when another job took it first or the delivery moved on: the caller
 * then sends nothing. If the claimant dies, the lease expires and the sweeper retries.
 */
export async function claimDeliveryAttempt(db: Db, claim: DeliveryClaim): Promise<boolean> {
  const { count } = await db.webhookDelivery.updateMany({
    where: {
      id: claim.deliveryId,
      status: 'pending',
      attemptCount: claim.attemptCount,
      nextAttemptAt: claim.nextAttemptAt,
    },
    data: { nextAttemptAt: claim.leaseUntil },
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

/**
 * Writes the attempt row and moves the delivery on, atomically. Returns false (writing nothing)
 * when this attempt number was already recorded or the delivery is no longer pending.
 *
 * One statement (the update feeds the insert), so one round trip and an implicit transaction
 * instead of BEGIN, UPDATE, INSERT, COMMIT. The update's row lock serialises competing writers;
 * the loser re-reads attemptCount, matches nothing and so inserts nothing.
 */
export async function recordDeliveryAttempt(db: Db, record: DeliveryAttemptRecord): Promise<boolean> {
  const { outcome } = record;
  const nextAttemptAt = outcome.status === 'pending' ? outcome.nextAttemptAt : null;
  const completedAt = outcome.status === 'pending' ? null : new Date();
  const inserted = await db.$executeRaw`
    WITH moved AS (
      UPDATE "WebhookDelivery"
         SET "status" = ${outcome.status}::"DeliveryStatus",
             "attemptCount" = ${record.number}::int,
             "lastError" = ${record.error}::text,
             "nextAttemptAt" = ${nextAttemptAt}::timestamptz,
             "completedAt" = ${completedAt}::timestamptz,
             "updatedAt" = now()
       WHERE "id" = ${record.deliveryId} AND "status" = 'pending' AND "attemptCount" = ${record.number - 1}::int
      RETURNING "id"
    )
    INSERT INTO "DeliveryAttempt" ("id", "deliveryId", "number", "startedAt", "durationMs", "statusCode", "error")
    SELECT ${newId('dat')}, "id", ${record.number}::int, ${record.startedAt}::timestamptz,
           ${Math.max(0, Math.round(record.durationMs))}::int, ${record.statusCode}::int, ${record.error}::text
      FROM moved`;
  return inserted === 1;
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
