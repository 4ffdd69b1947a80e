import type { ClientBase } from 'pg';
import type { DbShape, ReferentialAction, TableShape } from './db-shape';

/** Prisma's bookkeeping table is not part of the datamodel; the migrator test checks it. */
export const MIGRATIONS_TABLE = '_prisma_migrations';

/** Reads the `public` schema from pg_catalog into the same shape expected-shape.ts derives. */
export async function actualShape(client: ClientBase): Promise<DbShape> {
  const tables: Record<string, TableShape> = {};
  const table = (name: string): TableShape => {
    const found = tables[name];
    if (found === undefined) throw new Error(`Table ${name} not found`);
    return found;
  };

  for (const row of await rows<{ name: string }>(
    client,
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') AND c.relname <> $1`,
    [MIGRATIONS_TABLE],
  )) {
    tables[row.name] = { columns: {}, primaryKey: null, uniqueIndexes: {}, indexes: {}, foreignKeys: {} };
  }

  for (const row of await rows<{
    table: string;
    name: string;
    type: string;
    not_null: boolean;
    default: string | null;
  }>(
    client,
    `SELECT c.relname AS table, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
            a.attnotnull AS not_null, pg_get_expr(d.adbin, d.adrelid) AS default
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
       LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE n.nspname = 'public' AND c.relname <> $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
        AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY c.relname, a.attnum`,
    [MIGRATIONS_TABLE],
  )) {
    table(row.table).columns[row.name] = { type: row.type, nullable: !row.not_null, default: row.default };
  }

  for (const row of await rows<{ table: string; name: string; primary: boolean; unique: boolean; columns: string[] }>(
    client,
    // Columns in index order; indoption bit 1 marks a descending column. Expression columns
    // (attnum 0) show as their expression text so they cannot match a plain column.
    `SELECT t.relname AS table, i.relname AS name, ix.indisprimary AS primary, ix.indisunique AS unique,
            ARRAY(SELECT COALESCE(a.attname::text, pg_get_indexdef(ix.indexrelid, k + 1, true))
                         || CASE WHEN ix.indoption[k] & 1 = 1 THEN ' DESC' ELSE '' END
                    FROM generate_subscripts(ix.indkey, 1) AS k
                    LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = ix.indkey[k] AND a.attnum > 0
                   ORDER BY k) AS columns
       FROM pg_index ix
       JOIN pg_class i ON i.oid = ix.indexrelid
       JOIN pg_class t ON t.oid = ix.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND t.relname <> $1`,
    [MIGRATIONS_TABLE],
  )) {
    const target = table(row.table);
    if (row.primary) target.primaryKey = { name: row.name, columns: row.columns };
    else if (row.unique) target.uniqueIndexes[row.name] = row.columns;
    else target.indexes[row.name] = row.columns;
  }

  for (const row of await rows<{
    table: string;
    name: string;
    columns: string[];
    referenced_table: string;
    referenced_columns: string[];
    on_delete: string;
    on_update: string;
  }>(
    client,
    `SELECT t.relname AS table, c.conname AS name, rt.relname AS referenced_table,
            ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
            ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS referenced_columns,
            c.confdeltype AS on_delete, c.confupdtype AS on_update
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class rt ON rt.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE c.contype = 'f' AND n.nspname = 'public' AND t.relname <> $1`,
    [MIGRATIONS_TABLE],
  )) {
    table(row.table).foreignKeys[row.name] = {
      columns: row.columns,
      referencedTable: row.referenced_table,
      referencedColumns: row.referenced_columns,
      onDelete: referentialAction(row.on_delete),
      onUpdate: referentialAction(row.on_update),
    };
  }

  const enums: Record<string, string[]> = {};
  for (const row of await rows<{ name: string; values: string[] }>(
    client,
    `SELECT t.typname AS name, ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = t.oid ORDER BY e.enumsortorder) AS values
       FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
      WHERE n.nspname = 'public' AND t.typtype = 'e'`,
  )) {
    enums[row.name] = row.values;
  }
  return { enums, tables };
}

async function rows<T extends object>(client: ClientBase, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await client.query<T>(sql, params)).rows;
}

// pg_constraint.confdeltype / confupdtype codes.
const ACTION_CODES: Record<string, ReferentialAction> = {
  a: 'NO ACTION',
  r: 'RESTRICT',
  c: 'CASCADE',
  n: 'SET NULL',
  d: 'SET DEFAULT',
};

function referentialAction(code: string): ReferentialAction {
  const action = ACTION_CODES[code];
  if (action === undefined) throw new Error(`Unknown referential action code ${code}`);
  return action;
}
