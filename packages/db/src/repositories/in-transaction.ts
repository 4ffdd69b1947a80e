import type { Db } from './db-handle';

/*
 * Prisma's defaults give an interactive transaction 2 s to get a pool connection (maxWait) and
 * 5 s to run (timeout). A role whose DATABASE_POOL_SIZE is below its concurrency (a worker with
 * 3 connections and 6 runs) queues for connections by design, and on a busy machine a queue of
 * 2 s is ordinary: the defaults failed such transactions ("Unable to start a transaction in the
 * given time"), failing runs whose work was fine. The pool's own queue is the back-pressure;
 * these bounds are only there so a stuck pool or statement surfaces as an error at all.
 */
/** How long a transaction may wait for a pool connection (ms). */
export const TRANSACTION_MAX_WAIT_MS = 30_000;
/** How long a transaction may run once it has one (ms). */
export const TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * Runs `fn` in a transaction. Handed a transaction, Prisma nests this one inside it, so a
 * repository function that needs atomicity still commits or rolls back with its caller's.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  return '$transaction' in db
    ? db.$transaction((tx) => fn(tx), { maxWait: TRANSACTION_MAX_WAIT_MS, timeout: TRANSACTION_TIMEOUT_MS })
    : fn(db);
}
