import { Client } from 'pg';
import { databaseNameOf, withDatabase } from './connection-url';

const DUPLICATE_DATABASE = '42P04';
const INVALID_CATALOG_NAME = '3D000';

export interface CreateDatabaseOptions {
  /** false (DATABASE_CREATE=false): a missing database is an error, and nothing is created. */
  allowed?: boolean;
}

/** The app database is missing and creating it is not allowed. */
export class DatabaseMissingError extends Error {
  constructor(readonly database: string) {
    super(
      `Database "${database}" does not exist and DATABASE_CREATE is false: create it ` +
        '(or set DATABASE_CREATE=true to let botfleet create it)',
    );
    this.name = 'DatabaseMissingError';
  }
}

/**
 * Creates the database named in `databaseUrl` unless it exists. It connects to that database
 * first and goes to the server's `postgres` database only when PostgreSQL answers that it does
 * not exist (3D000): poolers and managed services often offer no other database, or refuse it.
 *
 * Several processes may start at once, so losing the race to another creator counts as success:
 * PostgreSQL reports it as duplicate_database (42P04) or, when both pass the catalog check
 * together, as a unique violation on pg_database; either way the database exists afterwards,
 * which is re-checked. Returns true when this call created it.
 */
export async function createDatabaseIfMissing(
  databaseUrl: string,
  options: CreateDatabaseOptions = {},
): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
  if (await databaseAnswers(databaseUrl)) return false;
  if (options.allowed === false) throw new DatabaseMissingError(name);
  const client = new Client({ connectionString: withDatabase(databaseUrl, 'postgres') });
  await client.connect();
  try {
    if (await databaseExists(client, name)) return false;
    try {
      // Identifiers cannot be bound as parameters; quote it the way PostgreSQL does.
      await client.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return true;
    } catch (error) {
      if (sqlState(error) === DUPLICATE_DATABASE || (await databaseExists(client, name))) return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}

/** True when a connection to the database opens; false when it does not exist; throws otherwise. */
async function databaseAnswers(databaseUrl: string): Promise<boolean> {
  const probe = new Client({ connectionString: databaseUrl });
  try {
    await probe.connect();
  } catch (error) {
    // A refused start-up closes the connection on its own: nothing to end.
    if (isMissingDatabaseError(error)) return false;
    throw error;
  }
  await probe.end();
  return true;
}

/** PostgreSQL's answer to a connection naming a database that does not exist (3D000). */
export function isMissingDatabaseError(error: unknown): boolean {
  return sqlState(error) === INVALID_CATALOG_NAME;
}

export function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

async function databaseExists(client: Client, name: string): Promise<boolean> {
  const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return found.rowCount !== 0;
}

export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error as { code: unknown };
  return typeof code === 'string' ? code : undefined;
}
