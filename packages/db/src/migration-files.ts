import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface MigrationFile {
  /** Directory name, e.g. `20261121000000_init`; this is `migration_name` in `_prisma_migrations`. */
  name: string;
  script: string;
  /** Lowercase hex SHA-256 of migration.sql's bytes, as Prisma computes it. */
  checksum: string;
}

/**
 * Reads Prisma's layout: one directory per migration holding `migration.sql`, applied in name
 * order (the timestamp prefix makes that chronological). Loose files such as
 * migration_lock.toml are not migrations and are skipped.
 */
export async function readMigrationFiles(migrationsDir: string): Promise<MigrationFile[]> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort(compareCodeUnits);
  return Promise.all(names.map((name) => readMigrationFile(migrationsDir, name)));
}

async function readMigrationFile(migrationsDir: string, name: string): Promise<MigrationFile> {
  const file = path.join(migrationsDir, name, 'migration.sql');
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new Error(`Migration directory ${name} has no readable migration.sql (${file})`, { cause: error });
  }
  return { name, script: bytes.toString('utf8'), checksum: createHash('sha256').update(bytes).digest('hex') };
}

// Plain code-unit order, like Prisma's byte-wise sort of directory names; localeCompare would
// depend on the machine's locale.
function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
