import { newId, type BotListCursor } from '@botfleet/core';
import { Client } from 'pg';
import { createPrismaClient, type PrismaClient } from '../client';
import {
  createCompletedExecution,
  createTestBot,
  createTestDatabase,
  seedBots,
  useTestOrganization,
  type TestDatabase,
} from '../testing';
import { botListQuery, listBots, type BotListPage } from './bot-list';
import { createExecution, createExecutions } from './executions';
import { ensureOrganization } from './organizations';

describe('Bot.lastRunAt follows every INSERT into "Execution"', () => {
  let db: PrismaClient;
  let organizationId: string;
  useTestOrganization(
    (client, id) => {
      db = client;
      organizationId = id;
    },
    { poolSize: 2 },
  );

  const lastRunAt = async (botId: string) =>
    (await db.bot.findUniqueOrThrow({ where: { id: botId }, select: { lastRunAt: true } })).lastRunAt;
  const newestCreatedAt = async (botId: string) =>
    (await db.execution.findFirstOrThrow({ where: { botId }, orderBy: { createdAt: 'desc' } })).createdAt;

  it('is null until the bot runs', async () => {
    const bot = await createTestBot(db, organizationId);
    expect(bot.lastRunAt).toBeNull();
  });

  it.each([
    ['a single trigger', 'api'],
    ['a rerun', 'rerun'],
    ['a schedule tick', 'schedule'],
  ] as const)('is set by %s', async (_case, trigger) => {
    const bot = await createTestBot(db, organizationId);
    const execution = await createExecution(db, {
      botId: bot.id,
      organizationId,
      trigger,
      params: {},
      ...(trigger === 'schedule' ? { scheduledFor: new Date() } : {}),
    });
    expect(await lastRunAt(bot.id)).toEqual(execution.createdAt);
  });

  it('is set once by a batch, to its runs’ time', async () => {
    const bot = await createTestBot(db, organizationId);
    await createExecutions(db, { botId: bot.id, botVersion: bot.version, organizationId, params: [{}, {}, {}] });
    expect(await lastRunAt(bot.id)).toEqual(await newestCreatedAt(bot.id));
  });

  it('is set by rows written through Prisma (fixtures, any future path)', async () => {
    const bot = await createTestBot(db, organizationId);
    await createCompletedExecution(db, { botId: bot.id, organizationId, extractedData: null });
    expect(await lastRunAt(bot.id)).toEqual(await newestCreatedAt(bot.id));
  });

  it('only moves forward, and stays when the newest runs are deleted', async () => {
    const bot = await createTestBot(db, organizationId);
    const newest = await createExecution(db, { botId: bot.id, organizationId, trigger: 'api', params: {} });
    // An older row arriving later (a backfill, an import) does not set the time back.
    await db.execution.create({ data: { id: newId('exe'), botId: bot.id, organizationId, createdAt: new Date(0) } });
    expect(await lastRunAt(bot.id)).toEqual(newest.createdAt);
    await db.execution.deleteMany({ where: { botId: bot.id } });
    expect(await lastRunAt(bot.id)).toEqual(newest.createdAt);
  });
});

/*
 * The plans of the page query at an organization of many bots. A database of its own: the seed
 * and its ANALYZE are this file's, whatever else the shared test database holds.
 */
describe('the page query walks an index for every sort and filter', () => {
  // The size the contract names. At 20,000 a sequential scan is the cheaper plan for a rare q,
  // rightly: the trigram lookups cost about what reading that few rows does.
  const BOTS = 100_000;
  let database: TestDatabase;
  let db: PrismaClient;
  let client: Client;
  let organizationId: string;

  beforeAll(async () => {
    database = await createTestDatabase({ migrated: true });
    db = createPrismaClient(database.url, { poolSize: 2 });
    organizationId = (await ensureOrganization(db, 'plans')).id;
    await seedBots(db, { organizationId, count: BOTS });
    // A second organization, so the organization's condition has something to tell apart.
    await seedBots(db, { organizationId: (await ensureOrganization(db, 'other')).id, count: 2_000 });
    client = new Client({ connectionString: database.url });
    await client.connect();
  }, 300_000);

  afterAll(async () => {
    await client?.end();
    await db?.$disconnect();
    await database?.drop();
  });

  interface PlanNode {
    'Node Type': string;
    'Relation Name'?: string;
    'Index Name'?: string;
    Plans?: PlanNode[];
  }
  const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

  /** The plan of the page query as listBots sends it: unnamed, planned with these values. */
  async function planOf(page: Omit<BotListPage, 'limit'>): Promise<PlanNode[]> {
    const query = botListQuery(organizationId, { limit: 20, ...page });
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (FORMAT JSON) ${query.text}`,
      query.values,
    );
    return nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
  }

  const botScans = (nodes: PlanNode[]) =>
    nodes.filter((n) => n['Relation Name'] === 'Bot' && n['Node Type'].includes('Scan'));
  const indexesUsed = (nodes: PlanNode[]) => new Set(nodes.map((n) => n['Index Name']).filter(Boolean));

  const cursorOf = (sort: BotListCursor['sort'], key: number | string | null): BotListCursor =>
    ({ sort, key, id: 'bot_8888888888888888888888888g' }) as BotListCursor;
  const halfway = Date.now() - 3 * 3600_000;

  it.each<[string, Omit<BotListPage, 'limit'>, string | string[]]>([
    ['-createdAt', { sort: '-createdAt' }, 'Bot_organizationId_createdAt_id_idx'],
    [
      '-createdAt after a cursor',
      { sort: '-createdAt', cursor: cursorOf('-createdAt', halfway) },
      'Bot_organizationId_createdAt_id_idx',
    ],
    ['createdAt', { sort: 'createdAt' }, 'Bot_organizationId_createdAt_id_idx'],
    [
      'createdAt after a cursor',
      { sort: 'createdAt', cursor: cursorOf('createdAt', halfway) },
      'Bot_organizationId_createdAt_id_idx',
    ],
    ['name', { sort: 'name' }, 'Bot_organizationId_name_id_idx'],
    ['name after a cursor', { sort: 'name', cursor: cursorOf('name', 'Bot 010000') }, 'Bot_organizationId_name_id_idx'],
    ['-lastRunAt', { sort: '-lastRunAt' }, 'Bot_organizationId_lastRunAt_id_idx'],
    [
      '-lastRunAt after a bot that ran',
      { sort: '-lastRunAt', cursor: cursorOf('-lastRunAt', halfway) },
      'Bot_organizationId_lastRunAt_id_idx',
    ],
    [
      '-lastRunAt after a bot that never ran',
      { sort: '-lastRunAt', cursor: cursorOf('-lastRunAt', null) },
      'Bot_organizationId_lastRunAt_id_idx',
    ],
    // Most bots match: the sort's index, stopping after a page of matches.
    ['q matching every bot', { sort: '-createdAt', filter: { q: 'shop' } }, 'Bot_organizationId_createdAt_id_idx'],
    [
      'a tag every tenth bot has, by name',
      { sort: 'name', filter: { tags: ['tenth'] } },
      'Bot_organizationId_name_id_idx',
    ],
    // Few match: their index, then the top of the matches; or the sort's index, read until a page
    // of matches is found. PostgreSQL picks between the two from its estimate of a substring's
    // share, which comes from a random sample and flips between ANALYZEs of the same data for a
    // substring held by 0.1% of the bots (CI saw the sort's index, this machine the trigram one;
    // the sort's walk measured 26-29 ms at 100,000 bots, the trigram path a few ms). Either is an
    // index; never a sequential scan.
    [
      'a rare q, newest first',
      { sort: '-createdAt', filter: { q: 'needle' } },
      ['Bot_name_idx', 'Bot_organizationId_createdAt_id_idx'],
    ],
    [
      'a rare q, oldest first',
      { sort: 'createdAt', filter: { q: 'NEEDLE' } },
      ['Bot_name_idx', 'Bot_organizationId_createdAt_id_idx'],
    ],
    [
      'a rare q, by name',
      { sort: 'name', filter: { q: 'needle' } },
      ['Bot_name_idx', 'Bot_organizationId_name_id_idx'],
    ],
    [
      'a rare q, by last run',
      { sort: '-lastRunAt', filter: { q: 'needle' } },
      ['Bot_name_idx', 'Bot_organizationId_lastRunAt_id_idx'],
    ],
    ['a q matching nothing', { sort: '-createdAt', filter: { q: 'no such bot' } }, 'Bot_name_idx'],
    ['a rare tag', { sort: '-createdAt', filter: { tags: ['rare'] } }, 'Bot_tags_idx'],
    ['a rare tag with status', { sort: 'name', filter: { tags: ['rare', 'fleet'], status: 'paused' } }, 'Bot_tags_idx'],
  ])('%s', async (_case, page, index) => {
    const nodes = await planOf(page);
    expect(botScans(nodes).length).toBeGreaterThan(0);
    expect(botScans(nodes).filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    const used = [...indexesUsed(nodes)] as string[];
    if (typeof index === 'string') expect(used).toContain(index);
    else expect(used.filter((name) => index.includes(name))).not.toEqual([]);
  });

  it('reads each bot’s last execution and schedule by index, once per bot on the page', async () => {
    const nodes = await planOf({ sort: '-createdAt' });
    expect(nodes.filter((n) => n['Relation Name'] === 'Execution').map((n) => n['Index Name'])).toEqual([
      'Execution_botId_createdAt_id_idx',
    ]);
  });

  it('answers the pages those plans describe', async () => {
    const rare = await listBots(db, organizationId, { limit: 100, sort: 'name', filter: { q: 'needle' } });
    expect(rare.items.map((b) => b.name)).toEqual(
      Array.from({ length: BOTS / 1000 }, (_, i) => `Bot ${String((i + 1) * 1000).padStart(6, '0')} needle`),
    );
    expect(rare.nextCursor).toBeNull();
  });
});
