import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import {
  createDatabaseIfMissing,
  createPrismaClient,
  findBotForTrigger,
  PRISMA_MIGRATION_LOCK_KEY,
  type PrismaClient,
} from '@botfleet/db';
import { countExecutionsByStatus, reserveTestDatabase, type TestDatabase } from '@botfleet/db/testing';
import {
  deletePrefixedKeys,
  startFixtureServer,
  startPgBouncer,
  uniqueQueuePrefix,
  waitUntil,
  type FixtureServer,
  type PgBouncer,
} from '@botfleet/testkit';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from './repo-paths';
import { serviceEnv, startRoleProcess, type RoleProcess } from './testing/role-process';

/*
 * botfleet behind PgBouncer 1.18 (Debian's) in pool_mode = transaction, which cannot keep named
 * prepared statements: every role in its own process, all four started together on a fresh
 * database, reach it only through the pooler with DATABASE_PREPARED_STATEMENTS=false. The pooler
 * offers the app database alone (no `postgres`), so start-up proves it goes nowhere else.
 */
const ROLES = ['api', 'worker', 'scheduler', 'delivery'] as const;
const RUNS = 30;
const READS = 200;
const prefix = uniqueQueuePrefix('test-pgbouncer');
let database: TestDatabase;
let bouncer: PgBouncer;
let site: FixtureServer;
let dataDir: string;
/** Straight to PostgreSQL, for what the test checks behind the pooler's back. */
let direct: PrismaClient;
let h: ApiHarness;
let org: TestOrg;
const services: RoleProcess[] = [];

beforeAll(async () => {
  database = reserveTestDatabase();
  // Fresh and empty: the roles migrate it, through the pooler.
  await createDatabaseIfMissing(database.url);
  [bouncer, site] = await Promise.all([
    startPgBouncer({ databases: [database.name], poolSize: 10 }),
    startFixtureServer({
      '/page': '<!doctype html><body><h1 id="t">Pooled</h1></body>',
      '/hook': (_req, res) => void res.writeHead(204).end(),
    }),
  ]);
  dataDir = mkdtempSync(join(tmpdir(), 'botfleet-pgbouncer-'));
  direct = createPrismaClient(database.url, { poolSize: 2 });
  const env = {
    ...serviceEnv({ databaseUrl: bouncer.url(database.name), queuePrefix: prefix, dataDir }),
    DATABASE_PREPARED_STATEMENTS: 'false',
    DATABASE_POOL_SIZE: '4',
    LOG_LEVEL: 'warn',
    SHUTDOWN_GRACE_SECONDS: '5',
    WORKER_CONCURRENCY: '4',
  };
  services.push(...(await Promise.all(ROLES.map((role) => startRoleProcess({ ...env, ROLES: role })))));
  await Promise.all(
    services.map((service, i) =>
      waitUntil(async () => (await service.get('/readyz')).status === 200, {
        timeoutMs: 90_000,
        intervalMs: 250,
        message: `the ${ROLES[i]} process never became ready: ${service.output()}`,
      }),
    ),
  );
  // Organizations, keys and bots straight to PostgreSQL: set-up, not what is under test.
  h = await createApiHarness({}, { databaseUrl: database.url, queuePrefix: prefix });
  org = await h.newOrg();
}, 150_000);

afterAll(async () => {
  for (const service of services) if (service.child.exitCode === null) service.signalGroup('SIGKILL');
  if (h) {
    await deletePrefixedKeys(h.deps.redis, prefix);
    await h.close();
  }
  await direct?.$disconnect();
  await bouncer?.stop();
  await site?.close();
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const apiUrl = () => /API listening on (http:\/\/localhost:\d+)/.exec(services[0]!.output())![1]!;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${apiUrl()}/api/v1${path}`, {
    method,
    headers: { ...org.auth('write'), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

it('applied each migration exactly once and left no migration lock', async () => {
  const expected = readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const rows = await direct.$queryRaw<{ name: string; finished: boolean }[]>`
    SELECT migration_name AS name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name`;
  expect(rows.map((row) => row.name)).toEqual(expected);
  expect(rows.every((row) => row.finished)).toBe(true);
  const locks = await direct.$queryRaw<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_locks
     WHERE locktype = 'advisory' AND objid = ${PRISMA_MIGRATION_LOCK_KEY}
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
  expect(locks[0]!.n).toBe(0);
  // The pooler offers no `postgres` database: start-up never asked for one.
  const asked = new Set([...bouncer.output().matchAll(/login attempt: db=(\S+)/g)].map((match) => match[1]));
  expect([...asked]).toEqual([database.name]);
});

it(`completes ${RUNS} runs triggered through the API, delivers their webhooks, and answers ${READS} reads`, async () => {
  const botId = await h.newBot(
    org,
    { name: 'behind the pooler', targetUrl: site.url('/page') },
    { manifest: { webhook: { url: site.url('/hook') } }, steps: [{ action: 'extract', name: 't', selector: '#t' }] },
  );
  // A batch and single triggers: both write paths, through the pooler.
  const batch = await api('POST', `/bots/${botId}/executions/batch`, {
    runs: Array.from({ length: RUNS - 10 }, () => ({})),
  });
  expect(batch.status).toBe(202);
  const singles = await Promise.all(Array.from({ length: 10 }, () => api('POST', `/bots/${botId}/executions`, {})));
  expect(singles.map((answer) => answer.status)).toEqual(Array(10).fill(202));

  const counts = await waitUntil(
    async () => {
      const byStatus = await countExecutionsByStatus(direct, org.id);
      return (byStatus.completed ?? 0) + (byStatus.failed ?? 0) === RUNS && byStatus;
    },
    { timeoutMs: 120_000, intervalMs: 250, message: 'all runs to end' },
  );
  expect(counts).toEqual({ completed: RUNS });
  // Exactly once: no run needed a second attempt.
  const attempts = await direct.$queryRaw<{ attempt: number }[]>`
    SELECT DISTINCT attempt FROM "Execution" WHERE "organizationId" = ${org.id}`;
  expect(attempts).toEqual([{ attempt: 1 }]);
  await waitUntil(() => site.requests.filter((r) => r.path === '/hook').length === RUNS, {
    timeoutMs: 60_000,
    message: 'every run’s webhook to arrive',
  });

  const list = await api('GET', `/executions?botId=${botId}&limit=100`);
  expect(list.status).toBe(200);
  const ids = (list.json as { data: { id: string }[] }).data.map((execution) => execution.id);
  expect(ids).toHaveLength(RUNS);
  const paths = [`/bots/${botId}`, `/bots`, `/executions?limit=10`, ...ids.map((id) => `/executions/${id}`)];
  const statuses: number[] = [];
  for (let i = 0; i < READS; i += 20) {
    const chunk = Array.from({ length: 20 }, (_, j) => api('GET', paths[(i + j) % paths.length]!));
    statuses.push(...(await Promise.all(chunk)).map((answer) => answer.status));
  }
  expect(statuses).toEqual(Array(READS).fill(200));
}, 240_000);

it('fails there with named prepared statements, the default a direct connection takes', async () => {
  // Several connections of botfleet's, few server connections behind them: each transaction may
  // land on a server connection where this client's statement names mean nothing.
  const named = createPrismaClient(bouncer.url(database.name), { poolSize: 4, preparedStatements: true });
  try {
    const failure = await waitUntil(
      async () => {
        const attempts = await Promise.allSettled(
          Array.from({ length: 20 }, (_, i) =>
            i % 2 === 0 ? findBotForTrigger(named, org.id, 'bot_none') : named.bot.findMany({ take: 1 }),
          ),
        );
        const rejected = attempts.find((attempt) => attempt.status === 'rejected');
        return rejected && String((rejected as PromiseRejectedResult).reason);
      },
      { timeoutMs: 30_000, intervalMs: 0, message: 'named statements kept working behind the pooler' },
    );
    expect(failure).toMatch(/prepared statement "bf_[0-9a-f]+" (does not exist|already exists)/);
  } finally {
    await named.$disconnect();
  }
}, 60_000);
