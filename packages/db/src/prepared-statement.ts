import type { Pool } from 'pg';
import type { Db } from './client';
import { statementName } from './statement-names';

/**
 * The hottest statements (one per API request on the busiest routes) skip Prisma's query
 * engine and go to pg as named prepared statements: Prisma's per-query work (building,
 * interpreting and mapping the query) costs several times what PostgreSQL spends answering it.
 * Everything else goes through Prisma. Repositories are still the only place that writes SQL.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

const pools = new WeakMap<object, Pool>();

/** Called by createPrismaClient: the pool behind a client, for queryPrepared. */
export function registerPool(client: object, pool: Pool): void {
  pools.set(client, pool);
}

export function preparedStatement(text: string): PreparedStatement {
  return { name: statementName(text), text };
}

/**
 * Runs the statement on the client's pool. Inside a transaction (a `tx` has no pool of its own)
 * it runs through Prisma on the transaction's connection instead, so callers need not care.
 * Parameters needing a type (jsonb, enums) must be cast in the text: both paths send text.
 */
export async function queryPrepared<Row>(db: Db, statement: PreparedStatement, values: unknown[]): Promise<Row[]> {
  const pool = pools.get(db);
  if (pool) return (await pool.query({ name: statement.name, text: statement.text, values })).rows as Row[];
  return db.$queryRawUnsafe<Row[]>(statement.text, ...values);
}
