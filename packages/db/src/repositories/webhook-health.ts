import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';

/*
 * Whether a bot's webhook is still worth sending to. The delivery role notes the first failure
 * after a success (so "failing for N days" costs one write per failing streak, not one per
 * attempt), clears it on the next success, and disables the webhook when the receiver is gone.
 * A PUT of the webhook section (applyManifestUpdate) clears all of it.
 */

/**
 * Notes that the bot's webhook is failing, from `at` unless an earlier failure is already noted;
 * returns the start of the failing streak (null when the bot has no manifest any more).
 */
export async function noteWebhookFailing(db: Db, botId: string, at: Date): Promise<Date | null> {
  const rows = await db.$queryRaw<{ since: Date }[]>`
    UPDATE "Manifest" SET "webhookFailingSince" = COALESCE("webhookFailingSince", ${at}::timestamptz)
     WHERE "botId" = ${botId}
    RETURNING "webhookFailingSince" AS since`;
  return rows[0]?.since ?? null;
}

/** The receiver answered: the failing streak is over. */
export async function clearWebhookFailing(db: Db, botId: string): Promise<void> {
  await db.manifest.updateMany({
    where: { botId, webhookFailingSince: { not: null } },
    data: { webhookFailingSince: null },
  });
}

/**
 * Disables the bot's webhook and fails its other pending deliveries (nothing more is sent until
 * a PUT of the webhook section). True when this call disabled it; false when it already was
 * disabled, or the bot has no webhook any more.
 */
export async function disableWebhook(db: Db, botId: string, reason: string, at = new Date()): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const disabled = await tx.$executeRaw`
      UPDATE "Manifest" SET "webhookDisabledAt" = ${at}::timestamptz, "webhookDisabledReason" = ${reason}
       WHERE "botId" = ${botId} AND "webhook" IS NOT NULL AND "webhookDisabledAt" IS NULL`;
    if (disabled === 0) return false;
    await tx.webhookDelivery.updateMany({
      where: { botId, status: 'pending' },
      data: { status: 'failed', nextAttemptAt: null, completedAt: at, lastError: `webhook disabled: ${reason}` },
    });
    return true;
  });
}

/**
 * Ends a pending delivery without an attempt, because its webhook was disabled meanwhile. False
 * when it was no longer pending.
 */
export async function abandonDelivery(db: Db, deliveryId: string, reason: string): Promise<boolean> {
  const { count } = await db.webhookDelivery.updateMany({
    where: { id: deliveryId, status: 'pending' },
    data: { status: 'failed', nextAttemptAt: null, completedAt: new Date(), lastError: reason },
  });
  return count === 1;
}
