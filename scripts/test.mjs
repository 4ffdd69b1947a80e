// `npm test`: set up, create and migrate a test database of its own (never the one `npm start`
// uses), type-check, then run every Jest suite. Extra arguments go to Jest.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, run, runTs, setup } from './setup.mjs';

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

const reportDir = mkdtempSync(join(tmpdir(), 'botfleet-jest-'));
const report = join(reportDir, 'results.json');
const jest = spawnSync(
  process.execPath,
  ['node_modules/jest/bin/jest.js', '--ci', '--json', `--outputFile=${report}`, ...process.argv.slice(2)],
  {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  },
);
try {
  // One plain closing line that any CI can read, whatever Jest's own summary looks like.
  const results = JSON.parse(readFileSync(report, 'utf8'));
  process.stdout.write(
    `${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`,
  );
} catch {
  process.stdout.write('0 passed, 1 failed\n');
} finally {
  rmSync(reportDir, { recursive: true, force: true });
}
process.exit(jest.status ?? 1);
