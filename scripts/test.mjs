// `npm test`: set up, create and migrate a test database of its own (never the one `npm start`
// uses), type-check, then run every Jest suite, part of them again on Node 24, and the soak tests.
// Extra arguments go to Jest (one run, on this Node).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureNode, NODE_24 } from './node-version.mjs';
import { ROOT, run, runTs, setup } from './setup.mjs';

setup({ pgbouncer: true });
const databaseUrl = process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/botfleet_test';
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  QUEUE_PREFIX: process.env.TEST_QUEUE_PREFIX ?? 'botfleet-test',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  NODE_ENV: 'test',
};
if (runTs('apps/launcher/src/migrate-cli.ts', [], env) !== 0) process.exit(1);
process.stderr.write('[test] type-checking\n');
run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit']);
process.stderr.write('[test] running jest\n');

// Soak tests (`*.soak.test.ts`, e.g. a 1,000-run batch through real Chromium) keep both cores busy
// for minutes: run beside the rest, they starve timing-sensitive suites. A plain `npm test` runs
// them after the others, alone and one at a time; `npm test -- <args>` runs whatever the arguments
// select, once.
const SOAK = '\\.soak\\.test\\.ts$';
// botfleet supports Node 20, 22 and 24 (`engines`), and the suite runs on whichever Node runs
// `npm test` (CI's is 20). This phase runs a part of it again on Node 24, a pinned release fetched
// once from the npm registry (scripts/node-version.mjs): the unit suites of the packages every role
// loads (no browser needed), the API contract tests and one end-to-end run through real Chromium.
// Enough to catch a dependency, native addon or Node API that behaves differently there, in about
// a minute; the soak tests stay on the main Node.
const ON_NODE_24 = [
  '--testPathPatterns',
  '/packages/(artifacts|core|engine|db|queue)/src/',
  '/apps/api/src/contract\\.test\\.ts$',
  // Node's internal socket._httpMessage, which client-error.ts reads behind a check.
  '/apps/api/src/http/client-error\\.test\\.ts$',
  '/apps/worker/src/execution-run\\.e2e\\.test\\.ts$',
  '--testPathIgnorePatterns',
  '/node_modules/',
  SOAK,
  // Real Redis Cluster and Sentinel topologies, started per file: engine tests, not unit tests.
  '/packages/queue/src/redis-(cluster|sentinel)\\.test\\.ts$',
];
const extra = process.argv.slice(2);
const phases =
  extra.length > 0
    ? [{ args: extra }]
    : [
        { args: ['--testPathIgnorePatterns', '/node_modules/', SOAK] },
        { title: `part of the suite on Node ${NODE_24}`, nodeVersion: NODE_24, args: ON_NODE_24 },
        // One at a time: two soak tests side by side starve each other as they would starve the rest.
        { title: 'the soak tests alone', args: ['--testPathPatterns', SOAK, '--runInBand'] },
      ];

/** One Jest run on the given Node binary; its counts come from Jest's JSON report. */
function runJest(args, node = process.execPath) {
  const reportDir = mkdtempSync(join(tmpdir(), 'botfleet-jest-'));
  const report = join(reportDir, 'results.json');
  const jest = spawnSync(node, ['node_modules/jest/bin/jest.js', '--ci', '--json', `--outputFile=${report}`, ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  });
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

/** The Node binary of a phase: this one, or a release fetched for it (a failure fails the phase). */
function nodeFor(phase) {
  if (!phase.nodeVersion) return process.execPath;
  try {
    return ensureNode(phase.nodeVersion);
  } catch (error) {
    process.stderr.write(`[test] cannot run ${phase.title}: ${error.message}\n`);
    return null;
  }
}

/** Which Node a binary is, as it says itself: the line that shows what ran a phase. */
function describeNode(node) {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  return `Node ${version || '(unknown version)'}, ${node}`;
}

const totals = { status: 0, passed: 0, failed: 0, skipped: 0 };
for (const phase of phases) {
  const node = nodeFor(phase);
  const startedAt = Date.now();
  if (phase.title) process.stderr.write(`[test] running ${phase.title}${node ? ` (${describeNode(node)})` : ''}\n`);
  const result = node ? runJest(phase.args, node) : { status: 1, passed: 0, failed: 1, skipped: 0 };
  if (phase.title) {
    const seconds = Math.round((Date.now() - startedAt) / 1000);
    process.stderr.write(`[test] ${phase.title}: ${result.passed} passed, ${result.failed} failed in ${seconds} s\n`);
  }
  totals.status ||= result.status;
  totals.passed += result.passed;
  totals.failed += result.failed;
  totals.skipped += result.skipped;
}
// One plain closing line that any CI can read, whatever Jest's own summary looks like.
process.stdout.write(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(totals.status);
