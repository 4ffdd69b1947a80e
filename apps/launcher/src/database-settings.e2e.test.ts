import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { createDatabaseIfMissing, createPrismaClient, type PrismaClient } from '@botfleet/db';
import { countExecutionsByStatus, reserveTestDatabase, TEST_SERVER_URL, type TestDatabase } from '@botfleet/db/testing';
import {
  deletePrefixedKeys,
  startFixtureServer,
  uniqueQueuePrefix,
  waitUntil,
  type FixtureServer,
} from '@botfleet/testkit';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS_DIR, REPO_ROOT } from './repo-paths';
import { serviceEnv, startRoleProcess, type RoleProcess } from './testing/role-process';

/*
 * The PostgreSQL settings of a deployment, each on a launcher process of its own against the
 * test server: MIGRATE_ON_START=false waits (unready, creating nothing) for the migration job,
 * DATABASE_CREATE=false refuses a missing database, DATABASE_POOL_SIZE caps a role's connections.
 */
const prefix = uniqueQueuePrefix('test-dbsettings');
const databases: TestDatabase[] = [];
const services: RoleProcess[] = [];
let dataDir: string;
/** On the server's `postgres` database: what an operator would look at. */
let admin: PrismaClient;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'botfleet-dbsettings-'));
  admin = createPrismaClient(TEST_SERVER_URL, { poolSize: 1 });
});

afterAll(async () => {
  for (const service of services) if (service.child.exitCode === null) service.signalGroup('SIGKILL');
  await admin?.$disconnect();
  await Promise.all(databases.map((database) => database.drop()));
  rmSync(dataDir, { recursive: true, force: true });
});

function newDatabase(): TestDatabase {
  const database = reserveTestDatabase();
  databases.push(database);
  return database;
}

async function start(database: TestDatabase, env: Record<string, string>): Promise<RoleProcess> {
  const service = await startRoleProcess({
    ...serviceEnv({ databaseUrl: database.url, queuePrefix: prefix, dataDir }),
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_SECONDS: '5',
    ...env,
  });
  services.push(service);
  return service;
}

const migrationNames = () => readdirSync(MIGRATIONS_DIR, { withFileTypes: true }).filter((e) => e.isDirectory());

async function tablesIn(database: TestDatabase): Promise<number> {
  const client = createPrismaClient(database.url, { poolSize: 1 });
  try {
    const [found] = await client.$queryRaw<
      { n: number }[]
    >`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`;
    return found!.n;
  } finally {
    await client.$disconnect();
  }
}

it('MIGRATE_ON_START=false: unready, naming the pending migrations, until `npm run db:migrate` applies them', async () => {
  const database = newDatabase();
  await createDatabaseIfMissing(database.url);
  const service = await start(database, { ROLES: 'scheduler', MIGRATE_ON_START: 'false' });

  const unready = await waitUntil(
    async () => {
      const answer = await service.get('/readyz');
      return answer.status === 503 && service.output().includes('waiting for pending database migrations') && answer;
    },
    { timeoutMs: 30_000, message: 'the role never said it waits for migrations' },
  );
  expect(unready.json).toMatchObject({ error: { details: { migrations: 'down' } } });
  const waiting = service
    .output()
    .split('\n')
    .filter((line) => line.includes('waiting for pending database migrations'));
  const logged = JSON.parse(waiting[0]!) as { pending: string[] };
  expect(logged.pending).toEqual(migrationNames().map((entry) => entry.name));
  expect(await tablesIn(database)).toBe(0);

  // It keeps polling (every 2 s) but says it again only after a minute or a change.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  expect(service.output().split('waiting for pending database migrations').length - 1).toBe(1);
  expect(await tablesIn(database)).toBe(0);

  const job = spawn('npm', ['run', '--silent', 'db:migrate'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let jobOutput = '';
  job.stdout.on('data', (chunk: Buffer) => (jobOutput += chunk.toString()));
  job.stderr.on('data', (chunk: Buffer) => (jobOutput += chunk.toString()));
  expect(await new Promise((resolve) => job.once('exit', resolve))).toBe(0);
  expect(jobOutput).toContain('Database is up to date');

  const ready = await waitUntil(
    async () => ((await service.get('/readyz')).status === 200 ? service.get('/readyz') : null),
    {
      timeoutMs: 30_000,
      message: 'the role never became ready once migrated',
    },
  );
  expect(ready.json).toMatchObject({ status: 'ok' });
  expect((ready.json as { checks: Record<string, string> }).checks.migrations).toBeUndefined();
  expect(service.output()).toContain('database migrations applied by another process');
}, 90_000);

it('DATABASE_CREATE=false: a missing database stops start-up with a message naming the setting', async () => {
  const database = newDatabase();
  const service = await start(database, { ROLES: 'scheduler', DATABASE_CREATE: 'false' });
  expect(await service.exited).toBe(1);
  expect(service.output()).toContain(`Database "${database.name}" does not exist and DATABASE_CREATE is false`);
  const found = await admin.$queryRaw<unknown[]>`SELECT 1 FROM pg_database WHERE datname = ${database.name}`;
  expect(found).toEqual([]);
}, 60_000);

describe('DATABASE_POOL_SIZE', () => {
  let database: TestDatabase;
  let h: ApiHarness;
  let org: TestOrg;
  let site: FixtureServer;

  beforeAll(async () => {
    database = newDatabase();
    site = await startFixtureServer({ '/page': '<!doctype html><body><h1 id="t">Pooled</h1></body>' });
  });

  afterAll(async () => {
    if (h) {
      await deletePrefixedKeys(h.deps.redis, prefix);
      await h.close();
    }
    await site?.close();
  });

  it('caps a worker running more runs at once than its pool at that many connections', async () => {
    const RUNS = 8;
    // The worker creates and migrates the database itself (MIGRATE_ON_START, DATABASE_CREATE defaults).
    const worker = await start(database, { ROLES: 'worker', DATABASE_POOL_SIZE: '3', WORKER_CONCURRENCY: '6' });
    await waitUntil(async () => (await worker.get('/readyz')).status === 200, {
      timeoutMs: 60_000,
      message: 'the worker never became ready',
    });
    h = await createApiHarness({}, { databaseUrl: database.url, queuePrefix: prefix });
    org = await h.newOrg();
    const botId = await h.newBot(
      org,
      { name: 'pooled', targetUrl: site.url('/page') },
      {
        steps: [
          { action: 'waitFor', ms: 1_500 },
          { action: 'extract', name: 't', selector: '#t' },
        ],
      },
    );
    const api = await h.listen();
    const batch = await fetch(`http://127.0.0.1:${api.port}/api/v1/bots/${botId}/executions/batch`, {
      method: 'POST',
      headers: { ...org.auth('write'), 'content-type': 'application/json' },
      body: JSON.stringify({ runs: Array.from({ length: RUNS }, () => ({})) }),
    });
    expect(batch.status).toBe(202);

    // Sampled while the runs go: every connection the worker's pool holds carries its roles.
    let most = 0;
    let running = 0;
    await waitUntil(
      async () => {
        const [held] = await admin.$queryRaw<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = ${database.name} AND application_name = 'botfleet worker'`;
        most = Math.max(most, held!.n);
        const byStatus = await countExecutionsByStatus(h.db, org.id);
        running = Math.max(running, byStatus.running ?? 0);
        return (byStatus.completed ?? 0) === RUNS;
      },
      { timeoutMs: 90_000, intervalMs: 50, message: 'all runs to complete' },
    );
    expect(running).toBeGreaterThan(3);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(3);
  }, 150_000);
});
