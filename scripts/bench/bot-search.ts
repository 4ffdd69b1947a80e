// Bot search figures (docs/bot-search.md): GET /bots page latency for a few query shapes at an
// organization of 1,000 and one of 100,000 bots, and what keeping Bot.lastRunAt (the AFTER INSERT
// trigger on "Execution") costs a trigger. Part of `npm run bench`; alone, against a database and
// Redis of your own:
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/<db> QUEUE_PREFIX=<prefix> npx tsx scripts/bench/bot-search.ts [--quick]
import { createSecretBox, encodeBotListCursor, redisSettingsFromUrl } from '@botfleet/core';
import { startApi } from '@botfleet/api';
import {
  createApiKey,
  createBot,
  createDatabaseIfMissing,
  createPrismaClient,
  deleteOrganization,
  ensureOrganization,
  findMigrationsDir,
  migrate,
  type PrismaClient,
} from '@botfleet/db';
import { createExecution } from '@botfleet/db/state';
import { seedBots } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { benchApiSettings } from './config';
import { runAsCommand } from './run-as-command';
import { distribution, round1, round3, type Distribution } from './stats';

/** The listings timed, as query strings of GET /bots (the seed's shape: packages/db/src/testing/bot-seed.ts). */
function queryShapes(deepCursor: { name: string; id: string }): Array<{ label: string; query: string }> {
  const cursor = encodeBotListCursor({ sort: 'name', key: deepCursor.name, id: deepCursor.id });
  return [
    { label: 'newest first', query: 'limit=20' },
    { label: 'sort=name, a page halfway', query: `limit=20&sort=name&cursor=${cursor}` },
    { label: 'sort=-lastRunAt', query: 'limit=20&sort=-lastRunAt' },
    { label: 'q=needle (1 in 1,000)', query: 'limit=20&q=needle' },
    { label: 'q=shop (every bot)', query: 'limit=20&q=shop' },
    { label: 'tag=rare (1 in 1,000)', query: 'limit=20&tag=rare' },
    { label: 'q=needle&tag=rare, by name', query: 'limit=20&q=needle&tag=rare&sort=name' },
    { label: 'tag=tenth&status=paused, -lastRunAt', query: 'limit=20&tag=tenth&status=paused&sort=-lastRunAt' },
  ];
}

export interface BotSearchResult {
  smallBots: number;
  largeBots: number;
  seedSeconds: number;
  requests: number;
  shapes: Array<{ label: string; small: Distribution; large: Distribution }>;
  trigger: TriggerCost;
}

export interface TriggerCost {
  inserts: number;
  /** ms per single-run INSERT (createExecution), one at a time, with and without the trigger. */
  withTrigger: Distribution;
  withoutTrigger: Distribution;
  /** Single-run INSERTs per second, 8 at a time on one bot (they queue on its row's update). */
  concurrentWithTrigger: number;
  concurrentWithoutTrigger: number;
}

async function createSearchedOrganization(db: PrismaClient, label: string, bots: number) {
  const org = await ensureOrganization(db, `bench-search-${label}-${randomBytes(4).toString('hex')}`);
  const { key } = await createApiKey(db, { organizationId: org.id, name: 'bench search', permission: 'read' });
  await seedBots(db, { organizationId: org.id, count: bots });
  // The bot a page halfway through sort=name starts after.
  const [middle] = await db.bot.findMany({
    where: { organizationId: org.id },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    skip: Math.floor(bots / 2),
    take: 1,
    select: { name: true, id: true },
  });
  if (!middle) throw new Error(`no bots seeded for ${label}`);
  return { organizationId: org.id, authHeader: `Bearer ${key}`, middle };
}

/**
 * Does a page cost the same at 100,000 bots as at 1,000? Seeds both organizations in one
 * statement each, then times each shape against both, alternating, so outside load hits both alike.
 */
export async function measureBotSearch(options: {
  db: PrismaClient;
  databaseUrl: string;
  /** botfleet's API, e.g. http://127.0.0.1:1234/api/v1 */
  baseUrl: string;
  smallBots: number;
  largeBots: number;
  requests: number;
  triggerInserts: number;
  /** Registers the organizations' deletion with the bench's cleanup. */
  cleanup: (name: string, run: () => Promise<unknown>) => void;
}): Promise<BotSearchResult> {
  const seedStarted = performance.now();
  const small = await createSearchedOrganization(options.db, 'small', options.smallBots);
  options.cleanup('search organization (small)', () => deleteOrganization(options.db, small.organizationId));
  const large = await createSearchedOrganization(options.db, 'large', options.largeBots);
  options.cleanup('search organization (large)', () => deleteOrganization(options.db, large.organizationId));
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const time = async (side: { authHeader: string }, query: string): Promise<number> => {
    const started = performance.now();
    const res = await fetch(`${options.baseUrl}/bots?${query}`, { headers: { authorization: side.authHeader } });
    const page = (await res.json()) as { data?: unknown[] };
    const ms = performance.now() - started;
    if (res.status !== 200 || !page.data?.length) throw new Error(`GET /bots?${query}: HTTP ${res.status}, empty`);
    return ms;
  };
  const shapes: BotSearchResult['shapes'] = [];
  const smallShapes = queryShapes(small.middle);
  const largeShapes = queryShapes(large.middle);
  for (const [i, shape] of smallShapes.entries()) {
    const largeQuery = largeShapes[i]!.query;
    // Warm-up: connections, the API key cache, the pages' index blocks.
    for (let w = 0; w < 5; w++) {
      await time(small, shape.query);
      await time(large, largeQuery);
    }
    const smallMs: number[] = [];
    const largeMs: number[] = [];
    for (let r = 0; r < options.requests; r++) {
      smallMs.push(await time(small, shape.query));
      largeMs.push(await time(large, largeQuery));
    }
    shapes.push({ label: shape.label, small: distribution(smallMs), large: distribution(largeMs) });
  }

  const trigger = await measureTriggerCost(
    options.db,
    options.databaseUrl,
    small.organizationId,
    options.triggerInserts,
  );
  return {
    smallBots: options.smallBots,
    largeBots: options.largeBots,
    seedSeconds,
    requests: options.requests,
    shapes,
    trigger,
  };
}

const TRIGGER = '"Execution_sets_Bot_lastRunAt"';

/**
 * createExecution (every trigger's INSERT) with the lastRunAt trigger and without it, in
 * alternating rounds. The trigger is disabled with ALTER TABLE for the "without" rounds and
 * enabled again whatever happens: run this with nothing else writing runs to the database.
 */
async function measureTriggerCost(
  db: PrismaClient,
  databaseUrl: string,
  organizationId: string,
  inserts: number,
): Promise<TriggerCost> {
  const bot = await createBot(db, organizationId, {
    name: 'bench trigger cost',
    targetUrl: 'https://bench.example',
    kind: 'extraction',
    tags: [],
  });
  const insert = () => createExecution(db, { botId: bot.id, organizationId, trigger: 'api', params: {} });
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  const setTrigger = (on: boolean) =>
    admin.query(`ALTER TABLE "Execution" ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${TRIGGER}`);
  const rounds = 4;
  const perRound = Math.max(1, Math.floor(inserts / rounds));
  const sequential = { on: [] as number[], off: [] as number[] };
  const concurrent = { on: { runs: 0, ms: 0 }, off: { runs: 0, ms: 0 } };
  try {
    for (let w = 0; w < 20; w++) await insert();
    for (let round = 0; round < rounds; round++) {
      for (const on of round % 2 === 0 ? [true, false] : [false, true]) {
        await setTrigger(on);
        const side = on ? 'on' : 'off';
        for (let i = 0; i < perRound; i++) {
          const started = performance.now();
          await insert();
          sequential[side].push(performance.now() - started);
        }
        const started = performance.now();
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            for (let i = 0; i < perRound / 8; i++) await insert();
          }),
        );
        concurrent[side].ms += performance.now() - started;
        concurrent[side].runs += 8 * Math.ceil(perRound / 8);
      }
    }
  } finally {
    await setTrigger(true);
    await admin.end();
  }
  return {
    inserts: perRound * rounds,
    withTrigger: distribution(sequential.on),
    withoutTrigger: distribution(sequential.off),
    concurrentWithTrigger: concurrent.on.runs / (concurrent.on.ms / 1000),
    concurrentWithoutTrigger: concurrent.off.runs / (concurrent.off.ms / 1000),
  };
}

export function formatBotSearch(r: BotSearchResult): string {
  const ms = (d: Distribution) => `${round1(d.p50)} / ${round1(d.p95)}`;
  const width = Math.max(...r.shapes.map((s) => s.label.length));
  const t = r.trigger;
  return [
    `Bot search: GET /bots page (p50 / p95 ms), ${r.smallBots.toLocaleString('en')} vs ${r.largeBots.toLocaleString('en')} bots, ${r.requests} requests each (seeded in ${round1(r.seedSeconds)} s)`,
    ...r.shapes.map((s) => `  ${s.label.padEnd(width)}  ${ms(s.small).padStart(13)}  ${ms(s.large).padStart(13)}`),
    `  lastRunAt trigger: createExecution p50 / p95 ${round3(t.withTrigger.p50)} / ${round3(t.withTrigger.p95)} ms with, ` +
      `${round3(t.withoutTrigger.p50)} / ${round3(t.withoutTrigger.p95)} ms without (${t.inserts} each); ` +
      `8 at a time on one bot ${Math.round(t.concurrentWithTrigger)} vs ${Math.round(t.concurrentWithoutTrigger)} inserts/s`,
  ].join('\n');
}

/** Alone: its own API on DATABASE_URL (created and migrated if need be) and REDIS_URL. */
async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const databaseUrl = process.env.DATABASE_URL;
  const queuePrefix = process.env.QUEUE_PREFIX;
  if (!databaseUrl || !queuePrefix) throw new Error('set DATABASE_URL and QUEUE_PREFIX (a database of your own)');
  await createDatabaseIfMissing(databaseUrl);
  await migrate(databaseUrl, { migrationsDir: findMigrationsDir(__dirname) });
  const db = createPrismaClient(databaseUrl);
  const cleanups: Array<() => Promise<unknown>> = [];
  const api = await startApi({
    db,
    redis: redisSettingsFromUrl(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'),
    queuePrefix,
    logger: createLogger({ level: 'silent' }),
    secretBox: createSecretBox(randomBytes(32)),
    port: 0,
    settings: benchApiSettings(),
  });
  try {
    const result = await measureBotSearch({
      db,
      databaseUrl,
      baseUrl: `http://127.0.0.1:${api.port}/api/v1`,
      smallBots: 1_000,
      largeBots: 100_000,
      requests: quick ? 30 : 200,
      triggerInserts: quick ? 400 : 2_000,
      cleanup: (_name, run) => cleanups.push(run),
    });
    process.stdout.write(`${formatBotSearch(result)}\n${JSON.stringify(result)}\n`);
  } finally {
    for (const run of cleanups.reverse()) await run();
    await api.stop();
    await db.$disconnect();
  }
}

if (require.main === module) runAsCommand(main);
