import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient, type Prisma } from './generated/prisma/client';
import { registerPool } from './prepared-statement';
import { createStatementNamer } from './statement-names';

export { PrismaClient };

/**
 * Anything that can run a query: the client itself or the `tx` handed to `$transaction`.
 * Repositories take a `Db` so the caller decides whether they run inside a transaction.
 */
export type Db = PrismaClient | Prisma.TransactionClient;

export interface CreatePrismaClientOptions {
  /** Maximum connections in this process's pg pool (pg's default is 10). */
  poolSize?: number;
}

/**
 * Prisma 7's client is Rust-free: it talks to PostgreSQL through the `pg` driver adapter, so the
 * pool is pg's and its size is configured here rather than in the connection string.
 */
export function createPrismaClient(databaseUrl: string, options: CreatePrismaClientOptions = {}): PrismaClient {
  const pool = new Pool({
    connectionString: databaseUrl,
    ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
  });
  // One pool for Prisma and for the hot prepared statements (queryPrepared); the adapter ends
  // it on $disconnect.
  const adapter = new PrismaPg(pool, { statementNameGenerator: createStatementNamer(), disposeExternalPool: true });
  // An idle connection that breaks (PostgreSQL restarted) is dropped by pg; without a listener
  // its 'error' event would end the process. The next query reports the outage.
  pool.on('error', () => undefined);
  const client = new PrismaClient({ adapter });
  registerPool(client, pool);
  return client;
}
