import { createLogger } from '@botfleet/io';
import { loadEnv } from './env';
import { prepareDatabase } from './prepare-database';

// `npm run db:migrate` (in the image: `node apps/launcher/dist/migrate-cli.js`): the one-off
// migration job for deployments that start their roles with MIGRATE_ON_START=false. It runs the
// start-up's own preparation: creates the database if missing and DATABASE_CREATE allows, then
// applies pending migrations through DIRECT_DATABASE_URL when set. Safe to run from several
// processes at once, and beside starting roles (see migrator.ts).
async function main(): Promise<void> {
  const env = loadEnv();
  await prepareDatabase(env, createLogger({ level: env.LOG_LEVEL }), { migrate: true });
  process.stdout.write('Database is up to date\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`db:migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
