import type { Pool } from 'pg';
import type { Db } from './repositories/db-handle';
import { statementName } from './statement-names';

/**
 * The hottest statements (one per API request on the busiest routes) skip Prisma's query
 * engine and go to pg as named prepared statements: Prisma's per-query work (building,
 * interpreting and mapping the query) costs several times what PostgreSQL spends answering it.
 * Everything else goes through Prisma. Repositories are still the only place that writes SQL.
 * Behind a transaction pooler (createPrismaClient's `preparedStatements: false`) they go unnamed.
 */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

interface RegisteredPool {
  pool: Pool;
  /** createPrismaClient's `preparedStatements`: false sends the hot statements unnamed too. */
  namedStatements: boolean;
}

const pools = new WeakMap<object, RegisteredPool>();

/** Called by createPrismaClient: the pool behind a client, for queryPrepared. */
export function registerPool(client: object, pool: Pool, options: { namedStatements: boolean }): void {
  pools.set(client, { pool, namedStatements: options.namedStatements });
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
  const registered = pools.get(db);
  if (registered) {
    const { pool, namedStatements } = registered;
    const query = namedStatements
      ? { name: statement.name, text: statement.text, values }
      : { text: statement.text, values };
    return (await pool.query(query)).rows as Row[];
  }
  return db.$queryRawUnsafe<Row[]>(statement.text, ...values);
}

/**
 * Runs a query unnamed on the client's pool, so PostgreSQL plans it with this call's values
 * every time: for queries whose best plan depends on them, such as how many rows a search
 * pattern matches, where a named statement may settle after five runs on one generic plan for
 * every pattern. Inside a transaction it runs through Prisma like queryPrepared.
 */
export async function queryPlannedPerCall<Row>(db: Db, query: { text: string; values: unknown[] }): Promise<Row[]> {
  const registered = pools.get(db);
  if (registered) return (await registered.pool.query({ text: query.text, values: query.values })).rows as Row[];
  return db.$queryRawUnsafe<Row[]>(query.text, ...query.values);
}
