import { Client, type ClientBase } from 'pg';
import { readMigrationFiles, type MigrationFile } from './migration-files';
import {
  ensureMigrationsTable,
  listMigrationRows,
  migrationsTableExists,
  recordFailed,
  recordFinished,
  recordStarted,
  type MigrationRow,
} from './migrations-table';

/** The advisory lock key Prisma's schema engine takes around migrations on PostgreSQL. */
export const PRISMA_MIGRATION_LOCK_KEY = 72707369;

/** Satisfied by pino and by `console`. */
export interface MigrationLogger {
  info(message: string): void;
  warn(message: string): void;
}

export interface MigrateOptions {
  /** Prisma's layout: `<dir>/<name>/migration.sql`. */
  migrationsDir: string;
  logger?: MigrationLogger;
}

const silentInfoLogger: MigrationLogger = {
  info: () => undefined,
  warn: (message) => process.stderr.write(`${message}\n`),
};

/** What migration connections are called in pg_stat_activity. */
export const MIGRATION_APPLICATION_NAME = 'botfleet migrate';

/**
 * Applies pending migrations the way `prisma migrate deploy` does, without Prisma's schema
 * engine (which cannot be installed here). Returns the names applied by this call, in order;
 * an up-to-date database yields an empty list.
 *
 * Each migration runs in a transaction of its own that first takes Prisma's advisory lock with
 * pg_advisory_xact_lock, then re-reads the bookkeeping: concurrent starters (or Prisma itself)
 * queue on the lock, and whoever comes second finds the migration recorded. A transaction-scoped
 * lock ends with its transaction whatever happens, so none is left behind by a crash, and it
 * works through a transaction pooler, where a session lock would stay on whichever server
 * connection took it. Consequently a migration script must be able to run inside a transaction
 * (no CREATE INDEX CONCURRENTLY, no BEGIN/COMMIT of its own), as Prisma's generated ones do.
 */
export async function migrate(databaseUrl: string, options: MigrateOptions): Promise<string[]> {
  const logger = options.logger ?? silentInfoLogger;
  // Read before connecting: a broken migrations directory should fail without touching the lock.
  const files = await readMigrationFiles(options.migrationsDir);
  const client = connectionFor(databaseUrl);
  await client.connect();
  try {
    const appliedNow: string[] = [];
    for (;;) {
      const step = await inLockedTransaction(client, () => applyNext(client, files, logger, appliedNow.length === 0));
      if (step === null) return appliedNow;
      // Thrown once the transaction recording the failure has committed.
      if (step.failure) throw step.failure;
      logger.info(`Applied migration ${step.name}`);
      appliedNow.push(step.name);
    }
  } finally {
    await client.end();
  }
}

/**
 * The migrations in `migrationsDir` not yet applied to the database, in order, read without
 * creating or locking anything (a database without `_prisma_migrations` has them all pending).
 * A failed migration counts as pending.
 */
export async function pendingMigrations(databaseUrl: string, options: { migrationsDir: string }): Promise<string[]> {
  const files = await readMigrationFiles(options.migrationsDir);
  const client = connectionFor(databaseUrl);
  await client.connect();
  try {
    if (!(await migrationsTableExists(client))) return files.map((file) => file.name);
    const applied = appliedByName(await listMigrationRows(client));
    return files.filter((file) => !applied.has(file.name)).map((file) => file.name);
  } finally {
    await client.end();
  }
}

function connectionFor(databaseUrl: string): Client {
  const client = new Client({ connectionString: databaseUrl, application_name: MIGRATION_APPLICATION_NAME });
  // A connection that breaks also fails the query in flight, which reports it; unheard, the
  // 'error' event would end the process.
  client.on('error', () => undefined);
  return client;
}

async function inLockedTransaction<T>(client: ClientBase, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [PRISMA_MIGRATION_LOCK_KEY]);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // Best effort: on a broken connection the rollback fails too, and the session's end undoes
    // the transaction (and its lock) anyway; the original error is the one worth reporting.
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

interface MigrationStep {
  name: string;
  /** Set when the script failed; the failure is recorded in _prisma_migrations. */
  failure?: Error;
}

/** Applies the first pending migration, inside the caller's locked transaction; null when none is. */
async function applyNext(
  client: ClientBase,
  files: MigrationFile[],
  logger: MigrationLogger,
  firstLook: boolean,
): Promise<MigrationStep | null> {
  await ensureMigrationsTable(client);
  const rows = await listMigrationRows(client);
  refuseIfFailed(rows);
  const applied = appliedByName(rows);
  if (firstLook) warnAboutDrift(files, applied, logger);
  const next = files.find((file) => !applied.has(file.name));
  if (next === undefined) return null;
  return { name: next.name, failure: await applyOne(client, next) };
}

function appliedByName(rows: MigrationRow[]): Map<string, MigrationRow> {
  return new Map(
    rows.filter((row) => row.finishedAt !== null && row.rolledBackAt === null).map((row) => [row.migrationName, row]),
  );
}

/** Same rule as Prisma (P3009): a row neither finished nor rolled back blocks everything after it. */
function refuseIfFailed(rows: MigrationRow[]): void {
  const failed = rows.find((row) => row.finishedAt === null && row.rolledBackAt === null);
  if (failed === undefined) return;
  throw new Error(
    `Migration ${failed.migrationName} started at ${failed.startedAt.toISOString()} failed or did not finish; ` +
      'no further migrations will be applied. Fix the database, then mark it with ' +
      `\`prisma migrate resolve --rolled-back ${failed.migrationName}\` (to retry it) or ` +
      `\`--applied ${failed.migrationName}\`.` +
      (failed.logs ? `\nLogs:\n${failed.logs}` : ''),
  );
}

function warnAboutDrift(files: MigrationFile[], applied: Map<string, MigrationRow>, logger: MigrationLogger): void {
  const local = new Map(files.map((file) => [file.name, file]));
  for (const [name, row] of applied) {
    const file = local.get(name);
    if (file === undefined) {
      logger.warn(`Migration ${name} is applied to the database but missing from the migrations directory`);
    } else if (file.checksum !== row.checksum) {
      logger.warn(`Migration ${name} was modified after it was applied (checksum ${row.checksum} -> ${file.checksum})`);
    }
  }
}

/**
 * Runs inside the locked transaction. The script runs after a savepoint: when it fails, only the
 * script is undone and the row recording the failure stays, to commit with the transaction, as
 * Prisma leaves it (finished_at null, logs set): later runs stop at it until someone resolves it.
 * Returns the failure, if any.
 */
async function applyOne(client: ClientBase, file: MigrationFile): Promise<Error | undefined> {
  const id = await recordStarted(client, file.name, file.checksum);
  await client.query('SAVEPOINT migration_script');
  try {
    // No parameters, so pg uses the simple query protocol and the multi-statement script runs
    // as sent, inside this transaction: a failure leaves no half-applied schema.
    await client.query(file.script);
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT migration_script');
    await recordFailed(client, id, describeDatabaseError(error));
    return new Error(`Migration ${file.name} failed: ${errorMessage(error)}`, { cause: error });
  }
  await recordFinished(client, id);
  return undefined;
}

/** Shaped like the logs Prisma stores, so `prisma migrate status` output reads the same. */
function describeDatabaseError(error: unknown): string {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unknown';
  const position =
    typeof error === 'object' && error !== null && 'position' in error && error.position !== undefined
      ? `\nPosition: ${String(error.position)}`
      : '';
  return `Database error code: ${code}\n\nDatabase error:\n${errorMessage(error)}${position}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
