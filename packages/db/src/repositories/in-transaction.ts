import type { Db } from './db-handle';

/**
 * Runs `fn` in a transaction. Handed a transaction, Prisma nests this one inside it, so a
 * repository function that needs atomicity still commits or rolls back with its caller's.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return '$transaction' in db ? db.$transaction((tx) => fn(tx)) : fn(db);
}
