import { newId, type KeysetCursor } from '@botfleet/core';
import { Prisma, type Execution, type ExecutionStatus, type ExecutionTrigger } from '../generated/prisma/client';
import { preparedStatement, queryPrepared } from '../prepared-statement';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';
import { afterCursor, NEWEST_FIRST, toPage } from './keyset';

/**
 * Every column but the extracted data, which can run to megabytes and which most reads of an
 * execution (its state, its logs, its failure) never show.
 */
export const EXECUTION_SUMMARY = {
  id: true,
  botId: true,
  organizationId: true,
  status: true,
  trigger: true,
  params: true,
  rerunOf: true,
  scheduledFor: true,
  attempt: true,
  error: true,
  failedStepIndex: true,
  dataChanged: true,
  botVersion: true,
  createdAt: true,
  startedAt: true,
  completedAt: true,
} as const satisfies Prisma.ExecutionSelect;

export type ExecutionSummary = Prisma.ExecutionGetPayload<{ select: typeof EXECUTION_SUMMARY }>;

/** A summary with its bot's name, for reads people see: a run is named by its bot, not by an id. */
export type NamedExecutionSummary = ExecutionSummary & { botName: string };

/**
 * The summary's columns and the bot's name, for raw statements over "Execution": the name comes in
 * the same statement (a run always has its bot: deleting a bot deletes its runs).
 */
export const NAMED_SUMMARY_COLUMNS = `${Object.keys(EXECUTION_SUMMARY)
  .map((column) => `"Execution"."${column}"`)
  .join(', ')}, (SELECT b.name FROM "Bot" b WHERE b.id = "Execution"."botId") AS "botName"`;

const NAMED_SUMMARY = { ...EXECUTION_SUMMARY, bot: { select: { name: true } } } as const;

const named = ({ bot, ...summary }: Prisma.ExecutionGetPayload<{ select: typeof NAMED_SUMMARY }>) => ({
  ...summary,
  botName: bot.name,
});

/** The execution without its extracted data, if it belongs to the organization. */
export interface NewExecution {
  botId: string;
  organizationId: string;
  trigger: ExecutionTrigger;
  params: Record<string, unknown>;
  /** For trigger "rerun": the execution this one reruns. */
  rerunOf?: string;
  idempotencyKey?: string;
  /** The schedule tick this run belongs to (unique per bot, so a tick never fires twice). */
  scheduledFor?: Date;
}

/**
 * A new run takes the profile its bot's manifest names at that moment (`session.profileId`): the
 * profile's runs take turns in the order they were triggered (see claimExecutionWithinCap).
 */
const PROFILE_OF_BOT = `(SELECT m."sessionProfileId" FROM "Manifest" m WHERE m."botId" = $2)`;

/**
 * A new run also takes the bot's version at that moment (bot-versions.ts): the definition it runs,
 * whatever is edited before a worker claims it. A rerun is a new run like any other: it runs the
 * bot's current version, not the original's (restore a version to run it again).
 */
const VERSION_OF_BOT = `(SELECT b.version FROM "Bot" b WHERE b.id = $2)`;

const INSERT_EXECUTION = preparedStatement(
  `INSERT INTO "Execution" (id, "botId", "organizationId", trigger, params, "idempotencyKey", "scheduledFor", "rerunOf", "profileId", "botVersion", "updatedAt")
   VALUES ($1, $2, $3, $4::"ExecutionTrigger", $5::jsonb, $6, $7, $8, ${PROFILE_OF_BOT}, ${VERSION_OF_BOT}, now())
   RETURNING *`,
);

/** Writes the pending execution row. Enqueueing its job comes after, with the row id as job id. */
export async function createExecution(db: Db, input: NewExecution): Promise<Execution> {
  const rows = await queryPrepared<Execution>(db, INSERT_EXECUTION, [newId('exe'), ...executionValues(input)]);
  return rows[0]!;
}

/** $2..$8 of both inserts: the row as NewExecution gives it. */
const executionValues = (input: NewExecution) => [
  input.botId,
  input.organizationId,
  input.trigger,
  JSON.stringify(input.params),
  input.idempotencyKey ?? null,
  input.scheduledFor ?? null,
  input.rerunOf ?? null,
];

/** A trigger's view of its bot: the version whose parameters it judged the params against. */
export interface AsJudged {
  /** Bot.version as the trigger read it (BotForTrigger.version). */
  botVersion: number;
}

const INSERT_EXECUTION_OF_BOT_VERSION = preparedStatement(
  `INSERT INTO "Execution" (id, "botId", "organizationId", trigger, params, "idempotencyKey", "scheduledFor", "rerunOf", "profileId", "botVersion", "updatedAt")
   SELECT $1, b.id, b."organizationId", $4::"ExecutionTrigger", $5::jsonb, $6::text, $7::timestamptz, $8::text,
          ${PROFILE_OF_BOT}, b.version, now()
     FROM "Bot" b
    WHERE b.id = $2 AND b."organizationId" = $3 AND b.status = 'active' AND b.version = $9::int
   RETURNING *`,
);

/**
 * The pending row of a trigger, written only while the bot is active at the version the trigger
 * judged its params against; null (nothing written) when it is not (paused, edited or deleted
 * since it was read): the caller judges the trigger again on the bot as it is now. The bot may
 * come from this process's memo (recentBotForTrigger), so this check is what makes that safe.
 */
export async function createExecutionAsJudged(db: Db, input: NewExecution & AsJudged): Promise<Execution | null> {
  const rows = await queryPrepared<Execution>(db, INSERT_EXECUTION_OF_BOT_VERSION, [
    newId('exe'),
    ...executionValues(input),
    input.botVersion,
  ]);
  return rows[0] ?? null;
}

/** Many pending runs of one bot, as a batch trigger writes them. */
export interface NewExecutions {
  botId: string;
  organizationId: string;
  /** One entry per run, in order. */
  params: Record<string, unknown>[];
}

/**
 * Writes every run of a batch in one multi-row INSERT: one statement, so all rows exist or none
 * does, and one round trip whatever the size. Returns the ids in the order of `params`; null
 * (nothing written) when the bot is no longer active at the version the batch was judged on.
 * The ids are sorted as they are handed out: the rows share createdAt, so a profile's turns
 * (createdAt, then id) follow the batch's order.
 */
export async function createExecutions(db: Db, input: NewExecutions & AsJudged): Promise<string[] | null> {
  const ids = input.params.map(() => newId('exe')).sort();
  const params = input.params.map((p) => JSON.stringify(p));
  // Guarded as createExecutionAsJudged is: one statement, so the bot check holds for every row.
  const written = await db.$executeRaw`
    INSERT INTO "Execution" (id, "botId", "organizationId", trigger, params, "profileId", "botVersion", "updatedAt")
    SELECT run.id, b.id, b."organizationId", 'api'::"ExecutionTrigger", run.params::jsonb,
           (SELECT m."sessionProfileId" FROM "Manifest" m WHERE m."botId" = b.id), b.version, now()
      FROM unnest(${ids}::text[], ${params}::text[]) AS run(id, params)
      JOIN "Bot" b ON b.id = ${input.botId} AND b."organizationId" = ${input.organizationId}
                  AND b.status = 'active' AND b.version = ${input.botVersion}`;
  return written === ids.length ? ids : null;
}

const COUNT_PENDING_UP_TO = preparedStatement(
  `SELECT count(*)::int AS n FROM (
     SELECT 1 FROM "Execution" WHERE "organizationId" = $1 AND status = 'pending' LIMIT $2
   ) AS pending`,
);

/**
 * How many runs of the organization are pending, counting no further than `upTo`: the
 * back-pressure check on every trigger reads at most that many index entries, however large
 * the backlog.
 */
export async function countPendingExecutions(db: Db, organizationId: string, upTo: number): Promise<number> {
  const rows = await queryPrepared<{ n: number }>(db, COUNT_PENDING_UP_TO, [organizationId, upTo]);
  return rows[0]?.n ?? 0;
}

/** The organization's share of the run queue, as its rows say: what waits, what runs, since when. */
export interface QueueBacklog {
  pending: number;
  running: number;
  /** When the oldest pending run was created; null when nothing is pending. */
  oldestPendingAt: Date | null;
}

/**
 * One statement for the queue overview: both counts and the oldest pending time come from the
 * (organizationId, status) index in a single pass, so an admin console polling every few seconds
 * costs one small scan of the organization's in-flight rows, never of its history.
 */
export async function queueBacklog(db: Db, organizationId: string): Promise<QueueBacklog> {
  const rows = await db.$queryRaw<{ pending: number; running: number; oldestPendingAt: Date | null }[]>`
    SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
           count(*) FILTER (WHERE status = 'running')::int AS running,
           min("createdAt") FILTER (WHERE status = 'pending') AS "oldestPendingAt"
      FROM "Execution"
     WHERE "organizationId" = ${organizationId} AND status IN ('pending', 'running')`;
  const row = rows[0];
  return { pending: row?.pending ?? 0, running: row?.running ?? 0, oldestPendingAt: row?.oldestPendingAt ?? null };
}

/**
 * Creates the execution unless this organization used the idempotency key since `since`, in which
 * case it returns the execution created for that key. An advisory lock on (organization, key)
 * serialises concurrent requests with the same key, so exactly one of them creates the execution.
 * Null as createExecutionAsJudged: the bot is no longer as the trigger judged it.
 */
export async function createExecutionOnce(
  db: Db,
  input: NewExecution & AsJudged & { idempotencyKey: string },
  since: Date,
): Promise<{ execution: Execution; created: boolean } | null> {
  return inTransaction(db, async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${input.organizationId}:${input.idempotencyKey}`}, 0))`;
    const existing = await findByIdempotencyKey(tx, input.organizationId, input.idempotencyKey, since);
    if (existing) return { execution: existing, created: false };
    const execution = await createExecutionAsJudged(tx, input);
    return execution && { execution, created: true };
  });
}

export async function findExecution(db: Db, organizationId: string, executionId: string) {
  return db.execution.findFirst({ where: { id: executionId, organizationId } });
}

const FIND_EXECUTION_SUMMARY = preparedStatement(
  `SELECT ${NAMED_SUMMARY_COLUMNS} FROM "Execution" WHERE id = $1 AND "organizationId" = $2`,
);

export async function findExecutionSummary(
  db: Db,
  organizationId: string,
  executionId: string,
): Promise<NamedExecutionSummary | null> {
  const rows = await queryPrepared<NamedExecutionSummary>(db, FIND_EXECUTION_SUMMARY, [executionId, organizationId]);
  return rows[0] ?? null;
}

/** The execution created for this idempotency key within the window, if any. */
export async function findByIdempotencyKey(db: Db, organizationId: string, key: string, since: Date) {
  return db.execution.findFirst({
    where: { organizationId, idempotencyKey: key, createdAt: { gte: since } },
    orderBy: { createdAt: 'desc' },
  });
}

/** Which executions a list shows; every field narrows it. `createdAfter` is inclusive, `createdBefore` exclusive. */
export interface ExecutionFilter {
  botId?: string;
  status?: ExecutionStatus[];
  trigger?: ExecutionTrigger;
  createdAfter?: Date;
  createdBefore?: Date;
}

function filterWhere(filter: ExecutionFilter): Prisma.ExecutionWhereInput {
  return {
    ...(filter.botId ? { botId: filter.botId } : {}),
    ...(filter.status?.length ? { status: { in: filter.status } } : {}),
    ...(filter.trigger ? { trigger: filter.trigger } : {}),
    ...(filter.createdAfter || filter.createdBefore
      ? { createdAt: { gte: filter.createdAfter, lt: filter.createdBefore } }
      : {}),
  };
}

/**
 * A page of the organization's executions (all its bots'), newest first, without their extracted
 * data, each with its bot's name (joined by the same read, not one read per bot).
 */
export async function listOrganizationExecutions(
  db: Db,
  organizationId: string,
  page: { limit: number; cursor?: KeysetCursor; filter?: ExecutionFilter },
) {
  const rows = await db.execution.findMany({
    where: { AND: [{ organizationId }, filterWhere(page.filter ?? {}), afterCursor(page.cursor)] },
    select: NAMED_SUMMARY,
    orderBy: NEWEST_FIRST,
    take: page.limit + 1,
  });
  return toPage(rows.map(named), page.limit);
}

/** A page of the bot's executions, newest first, without their extracted data. */
export async function listExecutions(
  db: Db,
  botId: string,
  page: { limit: number; cursor?: KeysetCursor; filter?: ExecutionFilter },
) {
  const rows = await db.execution.findMany({
    where: { AND: [{ botId }, filterWhere(page.filter ?? {}), afterCursor(page.cursor)] },
    select: EXECUTION_SUMMARY,
    orderBy: NEWEST_FIRST,
    take: page.limit + 1,
  });
  return toPage(rows, page.limit);
}

export async function latestExecution(db: Db, botId: string) {
  return db.execution.findFirst({ where: { botId }, orderBy: NEWEST_FIRST });
}

/** The newest completed execution that produced data. */
export async function latestExtract(db: Db, botId: string) {
  return db.execution.findFirst({
    where: { botId, status: 'completed', NOT: { extractedData: { equals: Prisma.DbNull } } },
    orderBy: [{ completedAt: 'desc' }, { id: 'desc' }],
  });
}
