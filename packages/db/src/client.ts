import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { registerPool } from './prepared-statement';
import { createStatementNamer } from './statement-names';

export { PrismaClient };

export interface CreatePrismaClientOptions {
  /** Maximum connections in this process's pg pool (DATABASE_POOL_SIZE; pg's default is 10). */
  poolSize?: number;
  /**
   * false runs every query unnamed (DATABASE_PREPARED_STATEMENTS=false): a transaction pooler such
   * as PgBouncer before 1.21 hands each transaction a different server connection, where a named
   * statement prepared on another one "does not exist" (or "already exists"). The one switch for
   * Prisma's statements and the hot ones of queryPrepared alike. Default true.
   */
  preparedStatements?: boolean;
  /** Shown in pg_stat_activity, so operators can tell botfleet's connections (and roles) apart. */
  applicationName?: string;
  /** How long a query waits for a connection (a new one's connect, or a free one of the pool); default 10 s. */
  connectTimeoutMs?: number;
}

/**
 * pg waits for a connection for ever by default: with PostgreSQL cut off (packets dropped, or a
 * proxy that accepts and never answers) every request would hang. Past this the query fails, and
 * translateDatabaseError makes it a 503 the client retries.
 */
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/**
 * Prisma 7's client is Rust-free: it talks to PostgreSQL through the `pg` driver adapter, so the
 * pool is pg's and its size is configured here rather than in the connection string.
 */
export function createPrismaClient(databaseUrl: string, options: CreatePrismaClientOptions = {}): PrismaClient {
  const namedStatements = options.preparedStatements ?? true;
  const pool = new Pool({
    connectionString: databaseUrl,
    application_name: options.applicationName ?? 'botfleet',
    connectionTimeoutMillis: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
  });
  // One pool for Prisma and for the hot prepared statements (queryPrepared); the adapter ends
  // it on $disconnect. Without a name generator the adapter sends every statement unnamed.
  const adapter = new PrismaPg(pool, {
    ...(namedStatements ? { statementNameGenerator: createStatementNamer() } : {}),
    disposeExternalPool: true,
  });
  // An idle connection that breaks (PostgreSQL restarted) is dropped by pg; without a listener
  // its 'error' event would end the process. The next query reports the outage.
  pool.on('error', () => undefined);
  const client = new PrismaClient({ adapter });
  registerPool(client, pool, { namedStatements });
  return client;
}
