import { databaseNameOf } from './connection-url';
import { createDatabaseIfMissing } from './create-database';
import { findMigrationsDir } from './migrations-dir';
import { migrate } from './migrator';

// `npx tsx packages/db/src/migrate-cli.ts`: creates the database if needed and applies pending
// migrations. Safe to run from several processes at once (see migrator.ts).
const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/botfleet';

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  if (await createDatabaseIfMissing(databaseUrl)) console.log(`Created database ${databaseNameOf(databaseUrl)}`);
  const applied = await migrate(databaseUrl, { migrationsDir: findMigrationsDir(__dirname), logger: console });
  console.log(applied.length === 0 ? 'Database is up to date' : `Applied ${applied.length} migration(s)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
