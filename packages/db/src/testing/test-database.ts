import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withDatabase } from '../connection-url';
import { createDatabaseIfMissing, quoteIdentifier } from '../create-database';
import { findMigrationsDir } from '../migrations-dir';
import { migrate } from '../migrator';

export const TEST_SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database, closing any connections a test left open. */
  drop(): Promise<void>;
}

/**
 * A throwaway database with a random name, so test files never share state and can run in
 * parallel. Pass `migrated: true` to get the current schema applied.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const database = reserveTestDatabase();
  await createDatabaseIfMissing(database.url);
  if (options.migrated) await migrate(database.url, { migrationsDir: findMigrationsDir(__dirname) });
  return database;
}

/**
 * A random database name on the test server, not created yet: for tests of code that creates
 * its database itself (the launcher, createDatabaseIfMissing). drop() is safe either way.
 */
export function reserveTestDatabase(): TestDatabase {
  const name = `botfleet_t_${randomBytes(6).toString('hex')}`;
  return { url: withDatabase(TEST_SERVER_URL, name), name, drop: () => dropDatabase(name) };
}

async function dropDatabase(name: string): Promise<void> {
  const client = new Client({ connectionString: TEST_SERVER_URL });
  await client.connect();
  try {
    // WITH (FORCE) (PostgreSQL 13+) ends sessions a test forgot to close instead of failing.
    await client.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
