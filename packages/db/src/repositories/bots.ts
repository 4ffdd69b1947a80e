import {
  newId,
  ParameterDefinitionSchema,
  type CreateBotInput,
  type ParameterDefinition,
  type UpdateBotInput,
} from '@botfleet/core';
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client';
import { preparedStatement, queryPrepared } from '../prepared-statement';
import { recordBotVersion } from './bot-definition';
import type { Db } from './db-handle';
import { storageKeysOf } from './execution-retention';
import { inTransaction } from './in-transaction';

/**
 * Creates a bot with the empty manifest and records it as version 1. `setUp` writes the rest of
 * what the bot is created with (a recording's steps, a fixture's manifest) in the same
 * transaction, before the version is recorded, so version 1 is the bot as created.
 */
export async function createBot(
  db: Db,
  organizationId: string,
  input: CreateBotInput,
  setUp?: (tx: Db, botId: string) => Promise<void>,
) {
  return inTransaction(db, async (tx) => {
    const bot = await tx.bot.create({
      data: {
        id: newId('bot'),
        organizationId,
        name: input.name,
        description: input.description ?? null,
        targetUrl: input.targetUrl,
        kind: input.kind,
        tags: input.tags,
        manifest: { create: {} },
      },
    });
    await setUp?.(tx, bot.id);
    await recordBotVersion(tx, bot.id);
    return bot;
  });
}

export async function findBot(db: Db, organizationId: string, botId: string) {
  return db.bot.findFirst({ where: { id: botId, organizationId } });
}

/** Applies a patch to a bot of this organization; null when there is no such bot. */
export async function updateBot(db: Db, organizationId: string, botId: string, patch: UpdateBotInput) {
  const { retry, ...fields } = patch;
  const data = {
    ...fields,
    ...(retry ? { retryAttempts: retry.attempts, retryDelaySeconds: retry.delaySeconds } : {}),
  };
  const { count } = await db.bot.updateMany({ where: { id: botId, organizationId }, data });
  return count === 1 ? findBot(db, organizationId, botId) : null;
}

/**
 * Deletes a bot and, by cascade, everything that belongs to it; null when there is no such bot.
 * Answers the S3 keys of its runs' artifacts (ARTIFACT_STORE=s3), read in the same statement as
 * the retention pass reads them (execution-retention.ts), for the caller to remove from the bucket.
 */
export async function deleteBot(db: Db, organizationId: string, botId: string): Promise<DeletedBot | null> {
  const [result] = await db.$queryRaw<{ deleted: number; storageKeys: string[] }[]>`
    WITH gone AS (DELETE FROM "Bot" WHERE id = ${botId} AND "organizationId" = ${organizationId} RETURNING id)
    SELECT (SELECT count(*)::int FROM gone) AS deleted,
           ${storageKeysOf(Prisma.sql`(SELECT x.id FROM "Execution" x WHERE x."botId" = ANY (ARRAY(SELECT id FROM gone)))`)} AS "storageKeys"`;
  return result && result.deleted > 0 ? { storageKeys: result.storageKeys } : null;
}

export interface DeletedBot {
  /** The S3 keys of the deleted runs' artifacts (none under ARTIFACT_STORE=postgres). */
  storageKeys: string[];
}

/** Deletes every bot of the organization with everything that belongs to them (test and benchmark cleanup). */
export async function deleteBotsOfOrganization(db: Db, organizationId: string): Promise<number> {
  const { count } = await db.bot.deleteMany({ where: { organizationId } });
  return count;
}

export interface BotForTrigger {
  id: string;
  status: 'active' | 'paused';
  /** Bot.version when read: the definition the parameters and steps below belong to. */
  version: number;
  parameters: ParameterDefinition[];
  /**
   * The recorded steps that use `{{...}}` placeholders, as stored: a trigger's params may make
   * their URLs unsafe, which only the params can tell (urlTemplateProblems in core).
   */
  templatedSteps: unknown[];
}

/** Built once: a zod schema made per call costs more than parsing the few definitions it checks. */
const ParameterDefinitions = z.array(ParameterDefinitionSchema);

const BOT_FOR_TRIGGER = preparedStatement(
  `SELECT b.id, b.status::text AS status, b.version, m.parameters,
          COALESCE((SELECT json_agg(s.definition ORDER BY s.index) FROM "RecordedStep" s
                     WHERE s."botId" = b.id AND s.definition::text LIKE '%{{%'), '[]'::json) AS "templatedSteps"
     FROM "Bot" b LEFT JOIN "Manifest" m ON m."botId" = b.id
    WHERE b.id = $1 AND b."organizationId" = $2`,
);

/**
 * What a trigger needs to know about a bot of this organization, as the database holds it now:
 * its status, version and declared parameters, in one round trip. Each read also refreshes this
 * process's memo of the bot (recentBotForTrigger).
 */
export async function findBotForTrigger(db: Db, organizationId: string, botId: string): Promise<BotForTrigger | null> {
  const rows = await queryPrepared<{
    id: string;
    status: 'active' | 'paused';
    version: number;
    parameters: unknown;
    templatedSteps: unknown;
  }>(db, BOT_FOR_TRIGGER, [botId, organizationId]);
  const row = rows[0];
  const bot: BotForTrigger | null = row
    ? {
        id: row.id,
        status: row.status,
        version: row.version,
        parameters: ParameterDefinitions.parse(row.parameters ?? []),
        templatedSteps: Array.isArray(row.templatedSteps) ? row.templatedSteps : [],
      }
    : null;
  rememberBotForTrigger(db, organizationId, botId, bot);
  return bot;
}

/*
 * The trigger is the API's hottest write, and reading its bot was one of its two round trips to
 * PostgreSQL. Each process keeps the bots its triggers read last (bounded, oldest dropped first),
 * keyed by organization and id, so another organization's id is never answered from it. Nothing
 * invalidates an entry (another process may pause or edit the bot at any time): an entry is only
 * good enough to let a trigger through to a write that checks it. The run's INSERT takes the bot
 * only while it is still active at the version read (createExecutionAsJudged, createExecutions),
 * and the engine judges every refusal, and every write so turned down, again on
 * findBotForTrigger (packages/engine trigger.ts). So a stale entry costs a round trip, never a
 * wrong answer.
 */
const RECENT_BOTS_PER_PROCESS = 1_000;
const recentBots = new WeakMap<Db, Map<string, BotForTrigger>>();

const recentBotKey = (organizationId: string, botId: string) => `${organizationId}/${botId}`;

function rememberBotForTrigger(db: Db, organizationId: string, botId: string, bot: BotForTrigger | null): void {
  let recent = recentBots.get(db);
  if (!recent) recentBots.set(db, (recent = new Map()));
  const key = recentBotKey(organizationId, botId);
  recent.delete(key);
  if (!bot) return;
  if (recent.size >= RECENT_BOTS_PER_PROCESS) recent.delete(recent.keys().next().value!);
  recent.set(key, bot);
}

/**
 * The bot as this process's triggers last read it, else as the database holds it now. May be
 * stale: only for a trigger whose write is guarded by the bot's version (see above).
 */
export async function recentBotForTrigger(
  db: Db,
  organizationId: string,
  botId: string,
): Promise<BotForTrigger | null> {
  return recentBots.get(db)?.get(recentBotKey(organizationId, botId)) ?? findBotForTrigger(db, organizationId, botId);
}
