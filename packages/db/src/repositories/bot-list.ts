import { encodeBotListCursor, type BotListCursor, type BotSort } from '@botfleet/core';
import { Prisma, type Bot, type BotStatus, type ExecutionStatus } from '../generated/prisma/client';
import { queryPlannedPerCall } from '../prepared-statement';
import type { Db } from './db-handle';
import type { Page } from './keyset';

/** Which bots GET /bots lists; every field narrows it. */
export interface BotListFilter {
  /** Case-insensitive substring of the name, the id or the targetUrl. */
  q?: string;
  /** Bots carrying every one of these tags. */
  tags?: string[];
  status?: BotStatus;
}

export interface BotListPage {
  limit: number;
  sort: BotSort;
  /** Must be of `sort` (the API refuses any other before it gets here). */
  cursor?: BotListCursor;
  filter?: BotListFilter;
}

/** The bot's newest execution still kept. */
export interface BotLastExecution {
  id: string;
  status: ExecutionStatus;
  createdAt: Date;
  completedAt: Date | null;
}

/** What a bot list shows of the bot's schedule. */
export interface BotScheduleSummary {
  active: boolean;
  intervalSeconds: number | null;
  cron: string | null;
  timezone: string;
  nextRunAt: Date | null;
}

/** A bot as GET /bots and GET /bots/:botId show it: the row, its newest execution and its schedule. */
export type BotListing = Bot & { lastExecution: BotLastExecution | null; schedule: BotScheduleSummary | null };

/** A bot just created has run nothing and has no schedule. */
export function newBotListing(bot: Bot): BotListing {
  return { ...bot, lastExecution: null, schedule: null };
}

interface ListingRow extends Bot {
  lastExecutionId: string | null;
  lastExecutionStatus: ExecutionStatus | null;
  lastExecutionCreatedAt: Date | null;
  lastExecutionCompletedAt: Date | null;
  scheduleActive: boolean | null;
  scheduleIntervalSeconds: number | null;
  scheduleCron: string | null;
  scheduleTimezone: string | null;
  scheduleNextRunAt: Date | null;
}

/* Each sort's ORDER BY over the alias `b` (the index it walks is in the migration 20261125053000). */
const ORDER: Record<BotSort, Prisma.Sql> = {
  '-createdAt': Prisma.sql`b."createdAt" DESC, b.id DESC`,
  createdAt: Prisma.sql`b."createdAt" ASC, b.id ASC`,
  name: Prisma.sql`b.name ASC, b.id ASC`,
  '-lastRunAt': Prisma.sql`b."lastRunAt" DESC NULLS LAST, b.id DESC`,
};

/** `%`, `_` and `\` of the user's text match themselves, not as LIKE wildcards. */
function substringPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

function filterConditions(organizationId: string, filter: BotListFilter): Prisma.Sql[] {
  const conditions = [Prisma.sql`b."organizationId" = ${organizationId}`];
  if (filter.q !== undefined && filter.q !== '') {
    const pattern = substringPattern(filter.q);
    conditions.push(Prisma.sql`(b.name ILIKE ${pattern} OR b.id ILIKE ${pattern} OR b."targetUrl" ILIKE ${pattern})`);
  }
  if (filter.tags?.length) conditions.push(Prisma.sql`b.tags @> ${filter.tags}::text[]`);
  if (filter.status) conditions.push(Prisma.sql`b.status = ${filter.status}::"BotStatus"`);
  return conditions;
}

const pageOf = (conditions: Prisma.Sql[], sort: BotSort, limit: number) =>
  Prisma.sql`SELECT b.* FROM "Bot" b WHERE ${Prisma.join(conditions, ' AND ')} ORDER BY ${ORDER[sort]} LIMIT ${limit}`;

/**
 * The bots of one page, in order, as one statement: the page's rows first, then each one's
 * newest execution and its schedule, so those cost one index probe per bot on the page.
 *
 * Every sort walks an index in page order, (organizationId, <sort key>, id), and a cursor
 * starts the walk at the previous page's last entry, so without filters a page costs its own
 * rows however deep it is and however many bots there are.
 *
 * With q or tag, "constant time per page" has two sides, and the planner picks between them from
 * the statistics (which is why the query is planned per call, queryPlannedPerCall): when many
 * bots match, walking the sort's index and skipping the bots that do not match finds a page
 * after about limit / (share matching) entries; when few match (a rare name among 100,000 sorted
 * by createdAt), that walk would read the whole organization, so the trigram (or tags) GIN index
 * finds the matches instead and the page is the top of them (a top-N sort): its cost is the
 * number of matches, which is small exactly when the walk would be long. The cost is bounded by
 * whichever is smaller, never by the number of bots. What falls between: q of one or two
 * characters has no trigram to look up, so it walks the sort's index; the GIN indexes hold every
 * organization's bots, so a lookup counts other organizations' matches too; and matches that all
 * sit at the far end of the sort (tagged bots that never ran, by -lastRunAt) are estimated as
 * if spread out, so the walk reads until it reaches them.
 */
export function botListQuery(organizationId: string, page: BotListPage): Prisma.Sql {
  const { cursor, sort } = page;
  if (cursor && cursor.sort !== sort) throw new Error(`a cursor of sort ${cursor.sort} cannot continue sort ${sort}`);
  const conditions = filterConditions(organizationId, page.filter ?? {});
  const take = page.limit + 1;
  // The checks on cursor.sort only narrow its type: it is `sort` by now.
  const rows =
    sort === '-lastRunAt'
      ? lastRunPage(conditions, cursor?.sort === '-lastRunAt' ? cursor : undefined, take)
      : pageOf([...conditions, ...(cursor && cursor.sort !== '-lastRunAt' ? [pastCursor(cursor)] : [])], sort, take);
  return withActivity(rows, ORDER[page.sort]);
}

/** The rows' newest executions and schedules, joined to the rows (a page, or one bot) and kept in `order`. */
function withActivity(rows: Prisma.Sql, order: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    SELECT b.*,
           le.id AS "lastExecutionId", le.status AS "lastExecutionStatus",
           le."createdAt" AS "lastExecutionCreatedAt", le."completedAt" AS "lastExecutionCompletedAt",
           s.active AS "scheduleActive", s."intervalSeconds" AS "scheduleIntervalSeconds", s.cron AS "scheduleCron",
           s.timezone AS "scheduleTimezone", s."nextRunAt" AS "scheduleNextRunAt"
      FROM (${rows}) b
      LEFT JOIN LATERAL (
        SELECT e.id, e.status::text AS status, e."createdAt", e."completedAt" FROM "Execution" e
         WHERE e."botId" = b.id ORDER BY e."createdAt" DESC, e.id DESC LIMIT 1
      ) le ON true
      LEFT JOIN "Schedule" s ON s."botId" = b.id
     ORDER BY ${order}`;
}

/** The rows after the cursor in its sort's order (-lastRunAt is lastRunPage's). */
function pastCursor(cursor: Exclude<BotListCursor, { sort: '-lastRunAt' }>): Prisma.Sql {
  switch (cursor.sort) {
    case '-createdAt':
      return Prisma.sql`(b."createdAt", b.id) < (${new Date(cursor.key)}, ${cursor.id})`;
    case 'createdAt':
      return Prisma.sql`(b."createdAt", b.id) > (${new Date(cursor.key)}, ${cursor.id})`;
    case 'name':
      return Prisma.sql`(b.name, b.id) > (${cursor.key}, ${cursor.id})`;
  }
}

/**
 * -lastRunAt after a bot that ran is "ran earlier, or never ran": an OR the index cannot start a
 * walk at. So the page is the bots that ran after the cursor followed by those that never ran,
 * each a walk of its own range of the (organizationId, lastRunAt DESC NULLS LAST, id DESC) index
 * and at most `take` long; after a bot that never ran, only the second range is left.
 */
function lastRunPage(
  conditions: Prisma.Sql[],
  cursor: Extract<BotListCursor, { sort: '-lastRunAt' }> | undefined,
  take: number,
): Prisma.Sql {
  const neverRan = pageOf(
    [
      ...conditions,
      Prisma.sql`b."lastRunAt" IS NULL`,
      ...(cursor?.key === null ? [Prisma.sql`b.id < ${cursor.id}`] : []),
    ],
    '-lastRunAt',
    take,
  );
  if (cursor?.key === null) return neverRan;
  const ran = pageOf(
    [
      ...conditions,
      cursor
        ? Prisma.sql`(b."lastRunAt", b.id) < (${new Date(cursor.key)}, ${cursor.id})`
        : Prisma.sql`b."lastRunAt" IS NOT NULL`,
    ],
    '-lastRunAt',
    take,
  );
  return Prisma.sql`SELECT b.* FROM ((${ran}) UNION ALL (${neverRan})) b ORDER BY ${ORDER['-lastRunAt']} LIMIT ${take}`;
}

function toListing(row: ListingRow): BotListing {
  const {
    lastExecutionId,
    lastExecutionStatus,
    lastExecutionCreatedAt,
    lastExecutionCompletedAt,
    scheduleActive,
    scheduleIntervalSeconds,
    scheduleCron,
    scheduleTimezone,
    scheduleNextRunAt,
    ...bot
  } = row;
  return {
    ...bot,
    lastExecution:
      lastExecutionId !== null && lastExecutionStatus !== null && lastExecutionCreatedAt !== null
        ? {
            id: lastExecutionId,
            status: lastExecutionStatus,
            createdAt: lastExecutionCreatedAt,
            completedAt: lastExecutionCompletedAt,
          }
        : null,
    // scheduleActive is NOT NULL in the table: null means the bot has no schedule row.
    schedule:
      scheduleActive !== null && scheduleTimezone !== null
        ? {
            active: scheduleActive,
            intervalSeconds: scheduleIntervalSeconds,
            cron: scheduleCron,
            timezone: scheduleTimezone,
            nextRunAt: scheduleNextRunAt,
          }
        : null,
  };
}

function cursorAfter(bot: Bot, sort: BotSort): BotListCursor {
  switch (sort) {
    case '-createdAt':
    case 'createdAt':
      return { sort, key: bot.createdAt.getTime(), id: bot.id };
    case 'name':
      return { sort, key: bot.name, id: bot.id };
    case '-lastRunAt':
      return { sort, key: bot.lastRunAt ? bot.lastRunAt.getTime() : null, id: bot.id };
  }
}

/** A page of the organization's bots (see botListQuery for how each sort and filter is found). */
export async function listBots(db: Db, organizationId: string, page: BotListPage): Promise<Page<BotListing>> {
  const rows = await queryPlannedPerCall<ListingRow>(db, botListQuery(organizationId, page));
  const items = rows.slice(0, page.limit).map(toListing);
  const last = items[items.length - 1];
  const nextCursor = rows.length > page.limit && last ? encodeBotListCursor(cursorAfter(last, page.sort)) : null;
  return { items, nextCursor };
}

/** One bot of the organization as the list shows it; null when there is no such bot. */
export async function findBotListing(db: Db, organizationId: string, botId: string): Promise<BotListing | null> {
  const bot = Prisma.sql`SELECT b.* FROM "Bot" b WHERE b.id = ${botId} AND b."organizationId" = ${organizationId}`;
  const rows = await queryPlannedPerCall<ListingRow>(db, withActivity(bot, ORDER['-createdAt']));
  return rows[0] ? toListing(rows[0]) : null;
}
