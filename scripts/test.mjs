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

// Soak tests (`*.soak.test.ts`, e.g. a 1,000-run batch through real Chromium) keep both cores busy
// for minutes: run beside the rest, they starve timing-sensitive suites. A plain `npm test` runs
// them after the others, alone and one at a time; `npm test -- <args>` runs whatever the arguments
// select, once.
const SOAK = '\\.soak\\.test\\.ts$';
const extra = process.argv.slice(2);
const phases =
  extra.length > 0
    ? [extra]
    : [
        ['--testPathIgnorePatterns', '/node_modules/', SOAK],
        // One at a time: two soak tests side by side starve each other as they would starve the rest.
        ['--testPathPatterns', SOAK, '--runInBand'],
      ];

/** One Jest run; its counts come from Jest's JSON report. */
function runJest(args) {
  const reportDir = mkdtempSync(join(tmpdir(), 'botfleet-jest-'));
  const report = join(reportDir, 'results.json');
  const jest = spawnSync(
    process.execPath,
    ['node_modules/jest/bin/jest.js', '--ci', '--json', `--outputFile=${report}`, ...args],
    { cwd: ROOT, stdio: 'inherit', env },
  );
  try {
    const results = JSON.parse(readFileSync(report, 'utf8'));
    return {
      status: jest.status ?? 1,
      passed: results.numPassedTests,
      failed: results.numFailedTests,
      skipped: results.numPendingTests,
    };
  } catch {
    return { status: jest.status ?? 1, passed: 0, failed: 1, skipped: 0 };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

const totals = { status: 0, passed: 0, failed: 0, skipped: 0 };
for (const [index, args] of phases.entries()) {
  if (phases.length > 1 && index > 0) process.stderr.write('[test] running the soak tests alone\n');
  const result = runJest(args);
  totals.status ||= result.status;
  totals.passed += result.passed;
  totals.failed += result.failed;
  totals.skipped += result.skipped;
}
// One plain closing line that any CI can read, whatever Jest's own summary looks like.
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(totals.status);
