import {
  newId,
  ParameterDefinitionSchema,
  type CreateBotInput,
  type KeysetCursor,
  type ParameterDefinition,
  type UpdateBotInput,
} from '@botfleet/core';
import { z } from 'zod';
import { preparedStatement, queryPrepared } from '../prepared-statement';
import type { Db } from './db-handle';
import { afterCursor, NEWEST_FIRST, toPage } from './keyset';

export async function createBot(db: Db, organizationId: string, input: CreateBotInput) {
  return db.bot.create({
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
}

export async function listBots(db: Db, organizationId: string, page: { limit: number; cursor?: KeysetCursor }) {
  const rows = await db.bot.findMany({
    where: { organizationId, ...afterCursor(page.cursor) },
    orderBy: NEWEST_FIRST,
    take: page.limit + 1,
  });
  return toPage(rows, page.limit);
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

/** Deletes a bot and, by cascade, everything that belongs to it. */
export async function deleteBot(db: Db, organizationId: string, botId: string): Promise<boolean> {
  const { count } = await db.bot.deleteMany({ where: { id: botId, organizationId } });
  return count === 1;
}

/** Deletes every bot of the organization with everything that belongs to them (test and benchmark cleanup). */
export async function deleteBotsOfOrganization(db: Db, organizationId: string): Promise<number> {
  const { count } = await db.bot.deleteMany({ where: { organizationId } });
  return count;
}

/** Everything a run needs about its bot, in one query: manifest, steps and the active handwritten script. */
export async function findBotForRun(db: Db, botId: string) {
  return db.bot.findUnique({
    where: { id: botId },
    include: {
      manifest: true,
      steps: { orderBy: { index: 'asc' } },
      scripts: { where: { origin: 'handwritten', active: true }, take: 1 },
    },
  });
}

export interface BotForTrigger {
  id: string;
  status: 'active' | 'paused';
  parameters: ParameterDefinition[];
  /**
   * The recorded steps that use `{{...}}` placeholders, as stored: a trigger's params may make
   * their URLs unsafe, which only the params can tell (urlTemplateProblems in core).
   */
  templatedSteps: unknown[];
}

const BOT_FOR_TRIGGER = preparedStatement(
  `SELECT b.id, b.status::text AS status, m.parameters,
          COALESCE((SELECT json_agg(s.definition ORDER BY s.index) FROM "RecordedStep" s
                     WHERE s."botId" = b.id AND s.definition::text LIKE '%{{%'), '[]'::json) AS "templatedSteps"
     FROM "Bot" b LEFT JOIN "Manifest" m ON m."botId" = b.id
    WHERE b.id = $1 AND b."organizationId" = $2`,
);

/**
 * What a trigger needs to know about a bot of this organization: its status and declared
 * parameters, in one round trip (the trigger is the API's hottest write path).
 */
export async function findBotForTrigger(db: Db, organizationId: string, botId: string): Promise<BotForTrigger | null> {
  const rows = await queryPrepared<{
    id: string;
    status: 'active' | 'paused';
    parameters: unknown;
    templatedSteps: unknown;
  }>(db, BOT_FOR_TRIGGER, [botId, organizationId]);
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    status: row.status,
    parameters: z.array(ParameterDefinitionSchema).parse(row.parameters ?? []),
    templatedSteps: Array.isArray(row.templatedSteps) ? row.templatedSteps : [],
  };
}
