import { randomUUID } from 'node:crypto';
import type { ClientBase } from 'pg';

/**
 * Prisma's bookkeeping table, column for column, so `prisma migrate deploy/status/resolve` and
 * this migrator can take turns on the same database.
 */
const CREATE_TABLE = `
CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export interface MigrationRow {
  id: string;
  checksum: string;
  migrationName: string;
  startedAt: Date;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
  logs: string | null;
}

export async function ensureMigrationsTable(client: ClientBase): Promise<void> {
  await client.query(CREATE_TABLE);
}

/** Whether the bookkeeping table exists, without creating it. */
export async function migrationsTableExists(client: ClientBase): Promise<boolean> {
  const result = await client.query<{ found: boolean }>(
    `SELECT to_regclass('_prisma_migrations') IS NOT NULL AS found`,
  );
  return result.rows[0]?.found === true;
}

export async function listMigrationRows(client: ClientBase): Promise<MigrationRow[]> {
  const result = await client.query<{
    id: string;
    checksum: string;
    migration_name: string;
    started_at: Date;
    finished_at: Date | null;
    rolled_back_at: Date | null;
    logs: string | null;
  }>(
    `SELECT id, checksum, migration_name, started_at, finished_at, rolled_back_at, logs
       FROM _prisma_migrations ORDER BY started_at, migration_name`,
  );
  return result.rows.map((row) => ({
    id: row.id,
    checksum: row.checksum,
    migrationName: row.migration_name,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    rolledBackAt: row.rolled_back_at,
    logs: row.logs,
  }));
}

/** Recorded in the migration's transaction before the script runs (see migrator.ts applyOne). */
export async function recordStarted(client: ClientBase, name: string, checksum: string): Promise<string> {
  const id = randomUUID();
  await client.query(
    `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, applied_steps_count)
     VALUES ($1, $2, $3, now(), 0)`,
    [id, checksum, name],
  );
  return id;
}

export async function recordFinished(client: ClientBase, id: string): Promise<void> {
  await client.query(`UPDATE _prisma_migrations SET applied_steps_count = 1, finished_at = now() WHERE id = $1`, [id]);
}

export async function recordFailed(client: ClientBase, id: string, logs: string): Promise<void> {
  await client.query(`UPDATE _prisma_migrations SET logs = $2 WHERE id = $1`, [id, logs]);
}
