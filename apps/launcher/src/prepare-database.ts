import type { Env, Logger } from '@botfleet/core';
import {
  createDatabaseIfMissing,
  createPrismaClient,
  isMissingDatabaseError,
  migrate,
  pendingMigrations,
  type PrismaClient,
} from '@botfleet/db';
import type { Readiness } from '@botfleet/ops';
import { setTimeout as sleep } from 'node:timers/promises';
import { MIGRATIONS_DIR } from './repo-paths';

export type DatabaseEnv = Pick<
  Env,
  'DATABASE_URL' | 'DIRECT_DATABASE_URL' | 'DATABASE_CREATE' | 'DATABASE_POOL_SIZE' | 'DATABASE_PREPARED_STATEMENTS'
>;

export interface PrepareDatabaseOptions {
  /**
   * true: create the database if missing and allowed (DATABASE_CREATE), then apply pending
   * migrations. false (MIGRATE_ON_START=false): create and change nothing, and wait until
   * someone else (the `npm run db:migrate` job) has applied every migration.
   */
  migrate: boolean;
  /** While waiting: /readyz fails with a `migrations` check until nothing is pending. */
  readiness?: Readiness;
}

/** A waiting process says again which migrations are pending at most this often (and on a change). */
const PENDING_LOG_INTERVAL_MS = 60_000;
/** How often a waiting process looks again. */
const PENDING_POLL_INTERVAL_MS = 2_000;

/**
 * What every process does with the database before its roles start, and all `npm run db:migrate`
 * does: the one code path for both. Migrations (and creating the database) use
 * DIRECT_DATABASE_URL when it is set, DATABASE_URL otherwise; both work through a transaction
 * pooler (migrator.ts). Start never connects to another database (`postgres`) unless the app
 * database is missing and DATABASE_CREATE allows creating it.
 */
export async function prepareDatabase(
  env: DatabaseEnv,
  logger: Logger,
  options: PrepareDatabaseOptions,
): Promise<void> {
  const url = env.DIRECT_DATABASE_URL ?? env.DATABASE_URL;
  if (!options.migrate) {
    await waitForMigrations(url, logger, options);
    return;
  }
  if (await createDatabaseIfMissing(url, { allowed: env.DATABASE_CREATE })) logger.info('database created');
  const applied = await migrate(url, { migrationsDir: MIGRATIONS_DIR, logger });
  if (applied.length > 0) logger.info({ applied }, 'database migrated');
}

/**
 * The process's Prisma client (and pg pool) from its settings: DATABASE_POOL_SIZE connections at
 * most (unless `poolSize` says fewer, as a one-off command needs), named statements unless
 * DATABASE_PREPARED_STATEMENTS=false, and `botfleet <what>` in pg_stat_activity so operators can
 * count each role's connections. It is the only pool of a process: prepareDatabase's connections
 * (the existence check, the migrator's, the pending-migrations look) are single ones, closed
 * before the roles start, so a ready process holds at most DATABASE_POOL_SIZE.
 */
export function openDatabase(env: DatabaseEnv, what: string, poolSize = env.DATABASE_POOL_SIZE): PrismaClient {
  return createPrismaClient(env.DATABASE_URL, {
    poolSize,
    preparedStatements: env.DATABASE_PREPARED_STATEMENTS,
    applicationName: `botfleet ${what}`,
  });
}

/**
 * MIGRATE_ON_START=false: returns once no migration is pending. Until then the process is unready
 * and says which migrations it waits for; a database that does not exist yet counts as waiting
 * too (the job creates it). Any other error (unreachable, bad credentials) ends start-up.
 */
async function waitForMigrations(url: string, logger: Logger, options: PrepareDatabaseOptions): Promise<void> {
  let pending = await pendingOrMissing(url);
  if (pending.length === 0) return;
  const unready = options.readiness?.add('migrations', async () => {
    throw new Error(`pending migrations: ${pending.join(', ')}`);
  });
  try {
    let told = '';
    let toldAt = 0;
    while (pending.length > 0) {
      const now = Date.now();
      const said = pending.join(',');
      if (said !== told || now - toldAt >= PENDING_LOG_INTERVAL_MS) {
        logger.warn(
          { pending },
          'waiting for pending database migrations (MIGRATE_ON_START=false): run `npm run db:migrate`',
        );
        told = said;
        toldAt = now;
      }
      await sleep(PENDING_POLL_INTERVAL_MS);
      pending = await pendingOrMissing(url);
    }
    logger.info('database migrations applied by another process; starting');
  } finally {
    unready?.();
  }
}

async function pendingOrMissing(url: string): Promise<string[]> {
  try {
    return await pendingMigrations(url, { migrationsDir: MIGRATIONS_DIR });
  } catch (error) {
    if (isMissingDatabaseError(error)) return ['(the database does not exist yet)'];
    throw error;
  }
}
