import type { Logger } from '@botfleet/core';
import { createDatabaseIfMissing, migrate } from '@botfleet/db';
import { MIGRATIONS_DIR } from './repo-paths';

/** Creates the database if needed and applies pending migrations (locked, so safe from many processes). */
export async function prepareDatabase(databaseUrl: string, logger: Logger): Promise<void> {
  await createDatabaseIfMissing(databaseUrl);
  const applied = await migrate(databaseUrl, { migrationsDir: MIGRATIONS_DIR, logger });
  if (applied.length > 0) logger.info({ applied }, 'database migrated');
}
