import { preparedStatement, queryPrepared } from '../prepared-statement';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';

/*
 * A bot's definition (its recorded steps, its scripts and its manifest) is versioned: every write
 * of any of them ends with recordBotVersion in the same transaction, which snapshots the rows as
 * they now stand and, when they differ from the newest version, stores them as the next one and
 * bumps Bot.version. A run records Bot.version when it is triggered (executions.ts) and runs that
 * snapshot, so what a run reports is what it ran. Versions are never pruned: one per edit, each
 * the size of the definition, and a bot's history is how a run's version stays runnable.
 *
 * Manifest fields the system writes itself (webhookDisabledAt/Reason, webhookFailingSince) are not
 * part of a definition: they record how the receiver behaved, not what the user configured.
 */

/**
 * The bot's definition built from its rows, as stored (secrets still sealed), for `FROM "Bot" b`.
 * Scripts are ordered by id (time-ordered, kept by a restore) so a restored definition compares
 * equal to the one it restored. The backfill migration 20261125054000_bot_versions_backfill
 * repeats these expressions; bot-versions.test.ts holds the two to the same shape.
 */
const DEFINITION_COLUMNS = `
  COALESCE((SELECT jsonb_agg(s.definition || jsonb_build_object('index', s.index) ORDER BY s.index)
              FROM "RecordedStep" s WHERE s."botId" = b.id), '[]'::jsonb) AS steps,
  COALESCE((SELECT jsonb_agg(jsonb_build_object('id', c.id, 'name', c.name, 'language', c.language,
                                                'origin', c.origin::text, 'source', c.source, 'active', c.active)
                             ORDER BY c.id)
              FROM "Script" c WHERE c."botId" = b.id), '[]'::jsonb) AS scripts,
  jsonb_build_object(
    'capabilities', COALESCE(m.capabilities, '{}'::jsonb),
    'webhook', NULLIF(m.webhook, 'null'::jsonb),
    'webhookSecretEnc', m."webhookSecretEnc",
    'webhookPasswordEnc', m."webhookPasswordEnc",
    'parameters', COALESCE(m.parameters, '[]'::jsonb),
    'session', CASE WHEN m."sessionProfileId" IS NULL THEN NULL
                    ELSE jsonb_build_object('profileId', m."sessionProfileId", 'persist', m."sessionPersist"::text) END
  ) AS manifest
  FROM "Bot" b LEFT JOIN "Manifest" m ON m."botId" = b.id`;

/** A definition as a version keeps it: the JSON the snapshot statement builds, untouched. */
export interface BotDefinition {
  steps: unknown;
  scripts: unknown;
  manifest: unknown;
}

/** What recordBotVersion did: the bot's version now, and whether this call made it. */
export interface RecordedVersion {
  version: number;
  created: boolean;
}

const LOCK_BOT = preparedStatement(`SELECT version FROM "Bot" WHERE id = $1 FOR NO KEY UPDATE`);

/*
 * One statement: the definition now, the newest version, what differs, and (when anything does,
 * or the bot has no version yet) the next version and the bot's new number. `changes` of a first
 * version is empty: nothing came before it.
 */
const RECORD_VERSION = preparedStatement(
  `WITH now_defined AS (SELECT b.id, ${DEFINITION_COLUMNS} WHERE b.id = $1),
        latest AS (SELECT v.version, v.steps, v.scripts, v.manifest FROM "BotVersion" v
                    WHERE v."botId" = $1 ORDER BY v.version DESC LIMIT 1),
        compared AS (
          SELECT d.*, l.version AS latest,
                 array_remove(ARRAY[CASE WHEN l.steps <> d.steps THEN 'steps' END,
                                    CASE WHEN l.scripts <> d.scripts THEN 'scripts' END,
                                    CASE WHEN l.manifest <> d.manifest THEN 'manifest' END], NULL) AS changes
            FROM now_defined d LEFT JOIN latest l ON true),
        inserted AS (
          INSERT INTO "BotVersion" ("botId", version, steps, scripts, manifest, changes, "restoredFrom")
          SELECT id, COALESCE(latest, 0) + 1, steps, scripts, manifest, changes, $2::int FROM compared
           WHERE latest IS NULL OR cardinality(changes) > 0
          RETURNING version),
        bumped AS (UPDATE "Bot" SET version = i.version FROM inserted i WHERE "Bot".id = $1 RETURNING "Bot".id)
   SELECT (SELECT version FROM inserted) AS created, (SELECT latest FROM compared) AS latest`,
);

/**
 * Snapshots the bot's definition and stores it as its next version if it differs from the newest
 * (a write that changed nothing makes none). Call it last in the transaction of every write of
 * steps, scripts or manifest: it locks the bot row, so concurrent writers number their versions
 * one after the other, each snapshot seeing the other's committed rows. The lock is the last one
 * every write path takes (after its step, script or manifest rows), so they cannot deadlock.
 * Null when there is no such bot.
 */
export async function recordBotVersion(
  db: Db,
  botId: string,
  options: { restoredFrom?: number } = {},
): Promise<RecordedVersion | null> {
  return inTransaction(db, async (tx) => {
    const locked = await queryPrepared<{ version: number }>(tx, LOCK_BOT, [botId]);
    if (locked.length === 0) return null;
    const [row] = await queryPrepared<{ created: number | null; latest: number | null }>(tx, RECORD_VERSION, [
      botId,
      options.restoredFrom ?? null,
    ]);
    if (row?.created != null) return { version: row.created, created: true };
    return { version: row?.latest ?? locked[0]!.version, created: false };
  });
}

const LOAD_DEFINITION = preparedStatement(`SELECT ${DEFINITION_COLUMNS} WHERE b.id = $1`);

/** The bot's definition as it stands now, in the shape a version keeps; null when there is no such bot. */
export async function loadBotDefinition(db: Db, botId: string): Promise<BotDefinition | null> {
  const [row] = await queryPrepared<BotDefinition>(db, LOAD_DEFINITION, [botId]);
  return row ?? null;
}
