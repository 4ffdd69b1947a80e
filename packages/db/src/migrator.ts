import { Client, type ClientBase } from 'pg';
import { readMigrationFiles, type MigrationFile } from './migration-files';
import {
  ensureMigrationsTable,
  listMigrationRows,
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

/**
 * Applies pending migrations the way `prisma migrate deploy` does, without Prisma's schema
 * engine (which cannot be installed here). Returns the names applied by this call, in order;
 * an up-to-date database yields an empty list.
 */
export async function migrate(databaseUrl: string, options: MigrateOptions): Promise<string[]> {
  const logger = options.logger ?? silentInfoLogger;
  // Read before connecting: a broken migrations directory should fail without touching the lock.
  const files = await readMigrationFiles(options.migrationsDir);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // Session-level lock on this one connection: concurrent starters (or Prisma itself) queue
    // here, and whoever comes second finds the work done.
    await client.query('SELECT pg_advisory_lock($1)', [PRISMA_MIGRATION_LOCK_KEY]);
    try {
      return await applyPending(client, files, logger);
    } finally {
      // Best effort: if the connection is broken the unlock fails too, but closing the session
      // below releases the lock anyway, and the original error is the one worth reporting.
      await client.query('SELECT pg_advisory_unlock($1)', [PRISMA_MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
}

async function applyPending(client: ClientBase, files: MigrationFile[], logger: MigrationLogger): Promise<string[]> {
  await ensureMigrationsTable(client);
  const rows = await listMigrationRows(client);
  refuseIfFailed(rows);
  const applied = new Map(
    rows.filter((row) => row.finishedAt !== null && row.rolledBackAt === null).map((row) => [row.migrationName, row]),
  );
  warnAboutDrift(files, applied, logger);

  const appliedNow: string[] = [];
  for (const file of files) {
    if (applied.has(file.name)) continue;
    await applyOne(client, file);
    logger.info(`Applied migration ${file.name}`);
    appliedNow.push(file.name);
  }
  return appliedNow;
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

async function applyOne(client: ClientBase, file: MigrationFile): Promise<void> {
  const id = await recordStarted(client, file.name, file.checksum);
  try {
    // No parameters, so pg uses the simple query protocol: the whole multi-statement script runs
    // as one implicit transaction, as with Prisma, and a failure leaves no half-applied schema
    // (unless the script itself commits, e.g. with explicit BEGIN/COMMIT).
    await client.query(file.script);
  } catch (error) {
    await recordFailed(client, id, describeDatabaseError(error));
    throw new Error(`Migration ${file.name} failed: ${errorMessage(error)}`, { cause: error });
  }
  await recordFinished(client, id);
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
