import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from './generated/prisma/client';
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
  const adapter = new PrismaPg(
    {
      connectionString: databaseUrl,
      ...(options.poolSize !== undefined ? { max: options.poolSize } : {}),
    },
    { statementNameGenerator: createStatementNamer() },
  );
  return new PrismaClient({ adapter });
}
