import { Client } from 'pg';
import { databaseNameOf, withDatabase } from './connection-url';

const DUPLICATE_DATABASE = '42P04';

/**
 * Creates the database named in `databaseUrl` unless it exists. Several processes may start at
 * once, so losing the race to another creator counts as success: PostgreSQL reports it as
 * duplicate_database (42P04) or, when both pass the catalog check together, as a unique
 * violation on pg_database; either way the database exists afterwards, which is re-checked.
 * Returns true when this call created it.
 */
export async function createDatabaseIfMissing(databaseUrl: string): Promise<boolean> {
  const name = databaseNameOf(databaseUrl);
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
