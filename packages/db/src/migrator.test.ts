import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitUntil } from '@botfleet/testkit';
import { Client } from 'pg';
import { readMigrationFiles, type MigrationFile } from './migration-files';
import { findMigrationsDir } from './migrations-dir';
import {
  migrate,
  MIGRATION_APPLICATION_NAME,
  pendingMigrations,
  PRISMA_MIGRATION_LOCK_KEY,
  type MigrationLogger,
} from './migrator';
import { createTestDatabase, type TestDatabase } from './testing';

const migrationsDir = findMigrationsDir(__dirname);
const INIT = '20261121000000_init';
// Every migration in the repository, in the order they apply; the first is INIT.
let migrations: MigrationFile[];
const names = () => migrations.map((m) => m.name);

beforeAll(async () => {
  migrations = await readMigrationFiles(migrationsDir);
});

// A fresh database per test: these tests are about what happens from an exact starting state.
let db: TestDatabase;
let client: Client;

beforeEach(async () => {
  db = await createTestDatabase();
  client = new Client({ connectionString: db.url });
  await client.connect();
});

afterEach(async () => {
  await client.end();
  await db.drop();
});

async function migrationRows() {
  const result = await client.query<{
    id: string;
    checksum: string;
    migration_name: string;
    logs: string | null;
    finished_at: Date | null;
    rolled_back_at: Date | null;
    applied_steps_count: number;
  }>('SELECT * FROM _prisma_migrations ORDER BY started_at, migration_name');
  return result.rows;
}

function recordingLogger(): MigrationLogger & { infos: string[]; warnings: string[] } {
  const infos: string[] = [];
  const warnings: string[] = [];
  return { infos, warnings, info: (m) => infos.push(m), warn: (m) => warnings.push(m) };
}

test('applies every migration to an empty database and records it as Prisma does', async () => {
  const logger = recordingLogger();
  expect(names()[0]).toBe(INIT);
  expect(await migrate(db.url, { migrationsDir, logger })).toEqual(names());
  expect(logger.infos).toEqual(names().map((name) => `Applied migration ${name}`));

  const script = await readFile(path.join(migrationsDir, INIT, 'migration.sql'));
  const [row, ...others] = await migrationRows();
  expect(others.map((r) => [r.migration_name, r.checksum])).toEqual(
    migrations.slice(1).map((m) => [m.name, m.checksum]),
  );
  expect(row).toMatchObject({
    migration_name: INIT,
    checksum: createHash('sha256').update(script).digest('hex'),
    applied_steps_count: 1,
    logs: null,
    rolled_back_at: null,
  });
  expect(row?.finished_at).toBeInstanceOf(Date);
  expect(row?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

  const tables = await client.query(`SELECT 1 FROM pg_tables WHERE schemaname = 'public' AND tablename = 'Bot'`);
  expect(tables.rowCount).toBe(1);
});

test("creates _prisma_migrations with Prisma's exact columns", async () => {
  await migrate(db.url, { migrationsDir });
  const columns = await client.query(
    `SELECT column_name, data_type, character_maximum_length AS length, is_nullable, column_default
       FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
  );
  expect(columns.rows).toEqual([
    { column_name: 'id', data_type: 'character varying', length: 36, is_nullable: 'NO', column_default: null },
    { column_name: 'checksum', data_type: 'character varying', length: 64, is_nullable: 'NO', column_default: null },
    {
      column_name: 'finished_at',
      data_type: 'timestamp with time zone',
      length: null,
      is_nullable: 'YES',
      column_default: null,
    },
    {
      column_name: 'migration_name',
      data_type: 'character varying',
      length: 255,
      is_nullable: 'NO',
      column_default: null,
    },
    { column_name: 'logs', data_type: 'text', length: null, is_nullable: 'YES', column_default: null },
    {
      column_name: 'rolled_back_at',
      data_type: 'timestamp with time zone',
      length: null,
      is_nullable: 'YES',
      column_default: null,
    },
    {
      column_name: 'started_at',
      data_type: 'timestamp with time zone',
      length: null,
      is_nullable: 'NO',
      column_default: 'now()',
    },
    { column_name: 'applied_steps_count', data_type: 'integer', length: null, is_nullable: 'NO', column_default: '0' },
  ]);
  const pk = await client.query(
    `SELECT conname FROM pg_constraint WHERE conrelid = '_prisma_migrations'::regclass AND contype = 'p'`,
  );
  expect(pk.rows).toEqual([{ conname: '_prisma_migrations_pkey' }]);
});

test('running again applies nothing', async () => {
  await migrate(db.url, { migrationsDir });
  const logger = recordingLogger();
  expect(await migrate(db.url, { migrationsDir, logger })).toEqual([]);
  expect(logger.infos).toEqual([]);
  expect(logger.warnings).toEqual([]);
  expect(await migrationRows()).toHaveLength(migrations.length);
});

test('two concurrent runs both succeed and the migration is applied once', async () => {
  // Hold Prisma's lock so both runs are provably waiting on it at the same time.
  const holder = new Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATION_LOCK_KEY]);
    const runs = Promise.all([migrate(db.url, { migrationsDir }), migrate(db.url, { migrationsDir })]);
    await waitUntil(
      async () => {
        const waiting = await holder.query(
          `SELECT count(*)::int AS n FROM pg_locks
          WHERE locktype = 'advisory' AND NOT granted AND objid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          [PRISMA_MIGRATION_LOCK_KEY],
        );
        return waiting.rows[0].n === 2;
      },
      { timeoutMs: 10_000, message: 'both migrations to wait on the lock' },
    );
    await holder.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATION_LOCK_KEY]);

    const results = await runs;
    expect(results.flat().sort()).toEqual(names());
    expect(await migrationRows()).toHaveLength(migrations.length);
  } finally {
    await holder.end();
  }
});

/** Advisory locks on Prisma's key held in this test's database, by anyone. */
async function migrationLocks(): Promise<number> {
  const result = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND objid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [PRISMA_MIGRATION_LOCK_KEY],
  );
  return result.rows[0]!.n;
}

test('holds the lock only inside each migration transaction, and leaves none behind', async () => {
  // While a run applies, its lock is a transaction's (pg_advisory_xact_lock): it goes with the
  // transaction, whatever happens to the session, so a transaction pooler cannot strand it.
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock($1)', [PRISMA_MIGRATION_LOCK_KEY]);
  const run = migrate(db.url, { migrationsDir });
  await waitUntil(async () => (await migrationLocks()) === 2, {
    timeoutMs: 10_000,
    message: 'the run to wait on the lock',
  });
  await client.query('COMMIT');
  expect(await run).toEqual(names());
  expect(await migrationLocks()).toBe(0);
});

test('pendingMigrations lists what migrate would apply, and creates nothing', async () => {
  expect(await pendingMigrations(db.url, { migrationsDir })).toEqual(names());
  expect((await client.query(`SELECT to_regclass('_prisma_migrations') AS t`)).rows[0].t).toBeNull();
  await migrate(db.url, { migrationsDir });
  expect(await pendingMigrations(db.url, { migrationsDir })).toEqual([]);
  await client.query(`DELETE FROM _prisma_migrations WHERE migration_name = $1`, [names().at(-1)]);
  expect(await pendingMigrations(db.url, { migrationsDir })).toEqual([names().at(-1)]);
});

test('names its connections in pg_stat_activity', async () => {
  const holder = new Client({ connectionString: db.url });
  await holder.connect();
  try {
    await holder.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATION_LOCK_KEY]);
    const run = migrate(db.url, { migrationsDir });
    await waitUntil(
      async () => {
        const seen = await client.query(
          `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`,
          [MIGRATION_APPLICATION_NAME],
        );
        return seen.rowCount === 1;
      },
      { timeoutMs: 10_000, message: 'the migration connection to show' },
    );
    await holder.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATION_LOCK_KEY]);
    await run;
  } finally {
    await holder.end();
  }
});

describe('with a temporary migrations directory', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'botfleet-migrations-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function writeMigration(name: string, sql: string): Promise<void> {
    await mkdir(path.join(dir, name));
    await writeFile(path.join(dir, name, 'migration.sql'), sql);
  }

  test('a failing migration records its logs and blocks later runs until resolved', async () => {
    await writeFile(path.join(dir, 'migration_lock.toml'), 'provider = "postgresql"\n');
    await writeMigration('001_ok', 'CREATE TABLE "A" ("id" TEXT PRIMARY KEY);\n');
    await writeMigration('002_bad', 'CREATE TABLE "B" ("id" TEXT PRIMARY KEY);\nSELECT no_such_function();\n');
    await writeMigration('003_later', 'CREATE TABLE "C" ("id" TEXT PRIMARY KEY);\n');

    await expect(migrate(db.url, { migrationsDir: dir })).rejects.toThrow(/002_bad failed: .*no_such_function/);
    const [ok, bad, ...rest] = await migrationRows();
    expect(rest).toEqual([]);
    expect(ok).toMatchObject({ migration_name: '001_ok', applied_steps_count: 1 });
    expect(bad).toMatchObject({ migration_name: '002_bad', applied_steps_count: 0, finished_at: null });
    expect(bad?.logs).toMatch(/42883[\s\S]*no_such_function/);
    // The script ran as one implicit transaction, so its first statement was undone too.
    expect((await client.query(`SELECT to_regclass('"B"') AS b`)).rows[0].b).toBeNull();

    // Even with the script fixed, nothing runs while the failed row is unresolved.
    await writeFile(path.join(dir, '002_bad', 'migration.sql'), 'CREATE TABLE "B" ("id" TEXT PRIMARY KEY);\n');
    await expect(migrate(db.url, { migrationsDir: dir })).rejects.toThrow(/Migration 002_bad started at .* failed/);
    expect(await migrationRows()).toHaveLength(2);

    expect(await migrationLocks()).toBe(0);

    // What `prisma migrate resolve --rolled-back 002_bad` does; then the fixed script applies.
    await client.query(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '002_bad'`);
    expect(await migrate(db.url, { migrationsDir: dir })).toEqual(['002_bad', '003_later']);
  });

  test('a run whose connection dies mid-script leaves no row and no lock: the next run applies it', async () => {
    await writeMigration('001_slow', 'CREATE TABLE "A" ("id" TEXT PRIMARY KEY);\nSELECT pg_sleep(60);\n');
    const run = migrate(db.url, { migrationsDir: dir });
    const backend = await waitUntil(
      async () => {
        const found = await client.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()`,
        );
        return found.rows[0]?.pid;
      },
      { timeoutMs: 10_000, message: 'the script to run' },
    );
    await client.query('SELECT pg_terminate_backend($1)', [backend]);
    await expect(run).rejects.toThrow();
    expect(await migrationLocks()).toBe(0);
    // Nothing of that transaction stayed, not even the bookkeeping table it created.
    expect(await pendingMigrations(db.url, { migrationsDir: dir })).toEqual(['001_slow']);
    expect((await client.query(`SELECT to_regclass('"A"') AS a`)).rows[0].a).toBeNull();

    await writeFile(path.join(dir, '001_slow', 'migration.sql'), 'CREATE TABLE "A" ("id" TEXT PRIMARY KEY);\n');
    expect(await migrate(db.url, { migrationsDir: dir })).toEqual(['001_slow']);
  });

  test('warns when an applied migration was edited, and does not re-apply it', async () => {
    await writeMigration('001_ok', 'CREATE TABLE "A" ("id" TEXT PRIMARY KEY);\n');
    await migrate(db.url, { migrationsDir: dir });
    await writeFile(path.join(dir, '001_ok', 'migration.sql'), 'CREATE TABLE "A" ("id" TEXT PRIMARY KEY); -- edited\n');

    const logger = recordingLogger();
    expect(await migrate(db.url, { migrationsDir: dir, logger })).toEqual([]);
    expect(logger.warnings).toEqual([expect.stringMatching(/001_ok was modified after it was applied/)]);
  });

  test('applies directories in name order', async () => {
    await writeMigration('002_second', 'ALTER TABLE "A" ADD COLUMN "b" TEXT;\n');
    await writeMigration('001_first', 'CREATE TABLE "A" ("id" TEXT PRIMARY KEY);\n');
    expect(await migrate(db.url, { migrationsDir: dir })).toEqual(['001_first', '002_second']);
  });
});
