/**
 * A database schema reduced to what Prisma's migrations decide, in one shape for both sides of
 * the comparison: derived from schema.prisma (expected-shape.ts) and read from PostgreSQL
 * (actual-shape.ts). Records keyed by name and arrays in meaningful order, so Jest's `toEqual`
 * diff points straight at the mismatch.
 */
export interface DbShape {
  /** Enum type name -> values in declaration order. */
  enums: Record<string, string[]>;
  tables: Record<string, TableShape>;
}

export interface TableShape {
  columns: Record<string, ColumnShape>;
  primaryKey: { name: string; columns: string[] } | null;
  /** Index name -> columns in order, each suffixed with " DESC" when descending. */
  uniqueIndexes: Record<string, string[]>;
  indexes: Record<string, string[]>;
  foreignKeys: Record<string, ForeignKeyShape>;
}

export interface ColumnShape {
  /** As PostgreSQL's format_type() prints it, e.g. `timestamp(3) with time zone`, `text[]`, `"BotKind"`. */
  type: string;
  nullable: boolean;
  /** As pg_get_expr() prints the default, or null when there is none. */
  default: string | null;
}

export interface ForeignKeyShape {
  columns: string[];
  referencedTable: string;
  referencedColumns: string[];
  onDelete: ReferentialAction;
  onUpdate: ReferentialAction;
}

export type ReferentialAction = 'CASCADE' | 'RESTRICT' | 'NO ACTION' | 'SET NULL' | 'SET DEFAULT';

/** Quotes an identifier only when PostgreSQL would, matching format_type()'s output. */
export function pgTypeName(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}
