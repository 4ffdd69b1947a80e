import type { Prisma, PrismaClient } from '../generated/prisma/client';

/**
 * Anything that can run a query: the client itself or the `tx` handed to `$transaction`.
 * Repositories take a `Db` so the caller decides whether they run inside a transaction.
 */
export type Db = PrismaClient | Prisma.TransactionClient;
