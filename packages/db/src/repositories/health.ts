import type { Db } from './db-handle';

/** Resolves when the database answers a trivial query (readiness checks). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.$queryRaw`SELECT 1`;
}
