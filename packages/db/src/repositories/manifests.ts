import {
  CapabilitiesSchema,
  ParameterDefinitionSchema,
  type Capabilities,
  type ParameterDefinition,
  type SessionPersist,
  StoredWebhookSchema,
  type StoredWebhook,
} from '@botfleet/core';
import { z } from 'zod';
import { Prisma, type Manifest as ManifestRow } from '../generated/prisma/client';
import { recordBotVersion } from './bot-definition';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';

/** A manifest as stored: secrets still sealed (see SecretBox in @botfleet/core). */
export interface StoredManifest {
  capabilities: Capabilities;
  webhook: StoredWebhook | null;
  webhookSecretEnc: string | null;
  webhookPasswordEnc: string | null;
  /**
   * Delivery stopped by itself (410 Gone, or failures only for too long); see webhook-health.ts.
   * Always read; left out of a manifest to save, they keep what is stored.
   */
  webhookDisabledAt?: Date | null;
  webhookDisabledReason?: string | null;
  /** The first failed attempt since the last successful one. */
  webhookFailingSince?: Date | null;
  parameters: ParameterDefinition[];
  /** The browser profile runs start from and, by `persist`, save back to (docs/sessions.md). */
  session: { profileId: string; persist: SessionPersist } | null;
}

const EMPTY: StoredManifest = {
  capabilities: {},
  webhook: null,
  webhookSecretEnc: null,
  webhookPasswordEnc: null,
  webhookDisabledAt: null,
  webhookDisabledReason: null,
  webhookFailingSince: null,
  parameters: [],
  session: null,
};

/** The bot's manifest; a bot without a row has the empty manifest. */
export async function loadManifest(db: Db, botId: string): Promise<StoredManifest> {
  return toStoredManifest(await db.manifest.findUnique({ where: { botId } }));
}

/** The bot's manifest row as stored, or null when there is none (e.g. once the bot is deleted). */
export async function findStoredManifest(db: Db, botId: string): Promise<StoredManifest | null> {
  const row = await db.manifest.findUnique({ where: { botId } });
  return row ? toStoredManifest(row) : null;
}

/** A manifest row (or its absence) as a validated StoredManifest. */
export function toStoredManifest(row: ManifestRow | null): StoredManifest {
  if (!row) return EMPTY;
  return {
    capabilities: CapabilitiesSchema.parse(row.capabilities),
    webhook: row.webhook === null ? null : StoredWebhookSchema.parse(row.webhook),
    webhookSecretEnc: row.webhookSecretEnc,
    webhookPasswordEnc: row.webhookPasswordEnc,
    webhookDisabledAt: row.webhookDisabledAt,
    webhookDisabledReason: row.webhookDisabledReason,
    webhookFailingSince: row.webhookFailingSince,
    parameters: z.array(ParameterDefinitionSchema).parse(row.parameters),
    session: row.sessionProfileId ? { profileId: row.sessionProfileId, persist: row.sessionPersist } : null,
  };
}

export async function saveManifest(db: Db, botId: string, manifest: StoredManifest): Promise<void> {
  const data = {
    capabilities: manifest.capabilities as Prisma.InputJsonObject,
    webhook: manifest.webhook === null ? Prisma.DbNull : (manifest.webhook as unknown as Prisma.InputJsonObject),
    webhookSecretEnc: manifest.webhookSecretEnc,
    webhookPasswordEnc: manifest.webhookPasswordEnc,
    webhookDisabledAt: manifest.webhookDisabledAt,
    webhookDisabledReason: manifest.webhookDisabledReason,
    webhookFailingSince: manifest.webhookFailingSince,
    parameters: manifest.parameters as unknown as Prisma.InputJsonArray,
    sessionProfileId: manifest.session?.profileId ?? null,
    sessionPersist: manifest.session?.persist ?? 'onSuccess',
  };
  await db.manifest.upsert({ where: { botId }, update: data, create: { botId, ...data } });
}

/**
 * Read-modify-write of the bot's manifest under a row lock, so two concurrent writers cannot
 * interleave theirs. `modify` may throw (e.g. a validation error) to abort without writing; it is
 * handed the transaction for checks that must hold until the write (a profile the manifest names).
 * A manifest that changed makes the bot's next version, in the same transaction.
 */
export async function modifyManifest(
  db: Db,
  botId: string,
  modify: (current: StoredManifest, tx: Db) => StoredManifest | Promise<StoredManifest>,
): Promise<StoredManifest> {
  return inTransaction(db, async (tx) => {
    await tx.$executeRaw`SELECT 1 FROM "Manifest" WHERE "botId" = ${botId} FOR UPDATE`;
    const next = await modify(await loadManifest(tx, botId), tx);
    await saveManifest(tx, botId, next);
    await recordBotVersion(tx, botId);
    return next;
  });
}
