import {
  CapabilitiesSchema,
  ParameterDefinitionSchema,
  SessionPersistSchema,
  StoredWebhookSchema,
  type Step,
} from '@botfleet/core';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client';
import { preparedStatement, queryPrepared } from '../prepared-statement';
import { loadBotDefinition, recordBotVersion, type BotDefinition, type RecordedVersion } from './bot-definition';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';
import type { StoredManifest } from './manifests';
import { replaceSteps } from './steps';

/*
 * A bot's history: its versions read back, listed and restored. Recording a version is in
 * bot-definition.ts, which every write of steps, scripts or a manifest calls; this file writes
 * through those writers (a restore), so they must not import it.
 */

const ScriptSnapshotSchema = z.object({
  id: z.string(),
  name: z.string(),
  language: z.string(),
  origin: z.enum(['generated', 'handwritten']),
  source: z.string(),
  active: z.boolean(),
});
export type ScriptSnapshot = z.infer<typeof ScriptSnapshotSchema>;

const ManifestSnapshotSchema = z.object({
  capabilities: CapabilitiesSchema,
  webhook: StoredWebhookSchema.nullable(),
  webhookSecretEnc: z.string().nullable(),
  webhookPasswordEnc: z.string().nullable(),
  parameters: z.array(ParameterDefinitionSchema),
  session: z.object({ profileId: z.string(), persist: SessionPersistSchema }).nullable(),
});

/** One version of a bot with its definition read back: steps, scripts, and the manifest as stored. */
export interface BotVersionRecord {
  botId: string;
  version: number;
  createdAt: Date;
  changes: string[];
  restoredFrom: number | null;
  steps: Step[];
  scripts: ScriptSnapshot[];
  /** Secrets still sealed; without the fields the system sets itself (webhookDisabledAt...). */
  manifest: StoredManifest;
  /** The snapshot exactly as stored, which a restore writes back. */
  definition: BotDefinition;
}

/** A stored manifest snapshot as a StoredManifest (validated like a Manifest row). */
export function manifestOfDefinition(manifest: unknown): StoredManifest {
  const parsed = ManifestSnapshotSchema.parse(manifest);
  return { ...parsed, webhookDisabledAt: null, webhookDisabledReason: null, webhookFailingSince: null };
}

type BotVersionRow = Prisma.BotVersionGetPayload<object>;

function toRecord(row: BotVersionRow): BotVersionRecord {
  return {
    botId: row.botId,
    version: row.version,
    createdAt: row.createdAt,
    changes: row.changes,
    restoredFrom: row.restoredFrom,
    steps: z.array(z.record(z.string(), z.unknown())).parse(row.steps) as unknown as Step[],
    scripts: z.array(ScriptSnapshotSchema).parse(row.scripts),
    manifest: manifestOfDefinition(row.manifest),
    definition: { steps: row.steps, scripts: row.scripts, manifest: row.manifest },
  };
}

/** One version of the bot; null when it has no such version. */
export async function findBotVersion(db: Db, botId: string, version: number): Promise<BotVersionRecord | null> {
  const row = await db.botVersion.findUnique({ where: { botId_version: { botId, version } } });
  return row ? toRecord(row) : null;
}

/**
 * Everything a run needs about its bot, in one query: the bot (target URL, retry policy) and the
 * version the run was triggered with. Null when the bot is gone. A bot without that version is
 * a broken invariant (every bot has its versions from creation or the backfill): it throws.
 */
export async function findBotVersionForRun(db: Db, botId: string, version: number) {
  const found = await db.bot.findUnique({ where: { id: botId }, include: { versions: { where: { version } } } });
  if (!found) return null;
  const { versions, ...bot } = found;
  const row = versions[0];
  if (!row) throw new Error(`bot ${botId} has no version ${version}`);
  return { bot, version: toRecord(row) };
}

/** What a version changed, in numbers a list can show: counts before and after, manifest sections. */
export interface BotVersionSummary {
  version: number;
  createdAt: Date;
  changes: string[];
  restoredFrom: number | null;
  steps: { before: number | null; after: number };
  scripts: { before: number | null; after: number };
  /** The manifest sections that differ from the version before (a rotated webhook secret counts as `webhook`). */
  manifestSections: string[];
}

/** The manifest sections a list compares, each with the snapshot keys that make it up. */
const MANIFEST_SECTIONS: Record<string, string[]> = {
  capabilities: ['capabilities'],
  webhook: ['webhook', 'webhookSecretEnc', 'webhookPasswordEnc'],
  parameters: ['parameters'],
  session: ['session'],
};

const sectionOf = (alias: string, keys: string[]) =>
  `jsonb_build_array(${keys.map((key) => `${alias}.manifest -> '${key}'`).join(', ')})`;

/*
 * Versions are numbered 1, 2, 3... per bot and never deleted on their own, so the one before
 * version n is n - 1. The page is keyed on the version number, newest first.
 */
const LIST_VERSIONS = preparedStatement(
  `SELECT v.version, v."createdAt", v.changes, v."restoredFrom",
          jsonb_array_length(v.steps) AS "stepCount", jsonb_array_length(p.steps) AS "previousStepCount",
          jsonb_array_length(v.scripts) AS "scriptCount", jsonb_array_length(p.scripts) AS "previousScriptCount",
          array_remove(ARRAY[${Object.entries(MANIFEST_SECTIONS)
            .map(
              ([section, keys]) =>
                `CASE WHEN p.version IS NOT NULL AND ${sectionOf('v', keys)} <> ${sectionOf('p', keys)} THEN '${section}' END`,
            )
            .join(', ')}]::text[], NULL) AS "manifestSections"
     FROM "BotVersion" v LEFT JOIN "BotVersion" p ON p."botId" = v."botId" AND p.version = v.version - 1
    WHERE v."botId" = $1 AND v.version < $2
    ORDER BY v.version DESC
    LIMIT $3`,
);

/** A page of the bot's versions, newest first; `before` is the nextCursor of the previous page. */
export async function listBotVersions(
  db: Db,
  botId: string,
  page: { limit: number; before?: number },
): Promise<{ items: BotVersionSummary[]; nextCursor: string | null }> {
  const rows = await queryPrepared<{
    version: number;
    createdAt: Date;
    changes: string[];
    restoredFrom: number | null;
    stepCount: number;
    previousStepCount: number | null;
    scriptCount: number;
    previousScriptCount: number | null;
    manifestSections: string[];
  }>(db, LIST_VERSIONS, [botId, page.before ?? 2 ** 31 - 1, page.limit + 1]);
  const items = rows.slice(0, page.limit).map((row) => ({
    version: row.version,
    createdAt: row.createdAt,
    changes: row.changes,
    restoredFrom: row.restoredFrom,
    steps: { before: row.previousStepCount, after: row.stepCount },
    scripts: { before: row.previousScriptCount, after: row.scriptCount },
    manifestSections: row.manifestSections,
  }));
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > page.limit && last ? String(last.version) : null };
}

/** What one version changed (as listBotVersions shows it); null when the bot has no such version. */
export async function summarizeBotVersion(db: Db, botId: string, version: number): Promise<BotVersionSummary | null> {
  const { items } = await listBotVersions(db, botId, { limit: 1, before: version + 1 });
  const [item] = items;
  return item?.version === version ? item : null;
}

/**
 * Makes a version's definition the bot's current one, as a new version (restoredFrom): the exact
 * steps, scripts (same ids) and manifest, sealed secrets included. `check` runs first, inside the
 * transaction, for what must still exist (the profile and credentials the version names); it
 * throws to refuse. A webhook the restore leaves as it is keeps its disabled state; a different
 * one starts afresh, as a PUT of the webhook section does. Answers the bot's version after it
 * (created: false when the version was already the current definition).
 */
export async function restoreBotVersion(
  db: Db,
  target: BotVersionRecord,
  check: (tx: Db) => Promise<void>,
): Promise<RecordedVersion | null> {
  const { botId } = target;
  return inTransaction(db, async (tx) => {
    // The manifest row first, as a PUT of the manifest locks it, and the bot row last (recordBotVersion).
    await tx.$executeRaw`SELECT 1 FROM "Manifest" WHERE "botId" = ${botId} FOR UPDATE`;
    await check(tx);
    const current = await loadBotDefinition(tx, botId);
    if (!current) return null;
    await writeManifestDefinition(tx, botId, target, sameWebhook(current.manifest, target.definition.manifest));
    await replaceSteps(tx, botId, target.steps);
    await replaceScripts(tx, botId, target.scripts);
    return recordBotVersion(tx, botId, { restoredFrom: target.version });
  });
}

const WEBHOOK_KEYS = MANIFEST_SECTIONS.webhook!;

function sameWebhook(a: unknown, b: unknown): boolean {
  const pick = (manifest: unknown) => WEBHOOK_KEYS.map((key) => (manifest as Record<string, unknown>)[key] ?? null);
  return isDeepStrictEqual(pick(a), pick(b));
}

async function writeManifestDefinition(tx: Db, botId: string, target: BotVersionRecord, keepHealth: boolean) {
  // The stored JSON as the version keeps it (not re-parsed), so the restored rows snapshot equal.
  const raw = target.definition.manifest as Record<string, Prisma.InputJsonValue | null>;
  const { manifest } = target;
  const data = {
    capabilities: raw.capabilities ?? {},
    webhook: raw.webhook ?? Prisma.DbNull,
    webhookSecretEnc: manifest.webhookSecretEnc,
    webhookPasswordEnc: manifest.webhookPasswordEnc,
    parameters: raw.parameters ?? [],
    sessionProfileId: manifest.session?.profileId ?? null,
    sessionPersist: manifest.session?.persist ?? 'onSuccess',
    ...(keepHealth ? {} : { webhookDisabledAt: null, webhookDisabledReason: null, webhookFailingSince: null }),
  };
  await tx.manifest.upsert({ where: { botId }, update: data, create: { botId, ...data } });
}

/** The bot's scripts become exactly these: others deleted, these written back under their ids. */
async function replaceScripts(tx: Db, botId: string, scripts: ScriptSnapshot[]): Promise<void> {
  await tx.script.deleteMany({ where: { botId, id: { notIn: scripts.map((script) => script.id) } } });
  for (const { id, ...fields } of scripts) {
    await tx.script.upsert({ where: { id }, update: fields, create: { id, botId, ...fields } });
  }
}
