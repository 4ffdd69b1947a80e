// `npm test`: set up, create and migrate a test database of its own (never the one `npm start`
// uses), type-check, then run every Jest suite. Extra arguments go to Jest.
import { run, runTs, setup } from './setup.mjs';

setup();
const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/botfleet_test';
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  QUEUE_PREFIX: process.env.TEST_QUEUE_PREFIX ?? 'botfleet-test',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  NODE_ENV: 'test',
};
if (runTs('packages/db/src/migrate-cli.ts', [], env) !== 0) process.exit(1);
process.stderr.write('[test] type-checking\n');
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit']);
process.stderr.write('[test] running jest\n');
try {
  run(process.execPath, ['node_modules/jest/bin/jest.js', '--ci', ...process.argv.slice(2)], { env });
} catch {
  process.exit(1);
}
