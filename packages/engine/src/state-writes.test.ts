import * as state from '@botfleet/db/state';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/*
 * One home for a run's life (ARCHITECTURE.md, "The engine: one home for a run's life"): only the
 * engine changes the state of an execution or a delivery. The repository functions that do are
 * exported from '@botfleet/db/state' alone (packages/db/src/state.ts; '@botfleet/db' has none of
 * them, see packages/db/src/state-entry.test.ts), so the rule is which entry a file imports. This
 * fails when a file outside packages/engine and packages/db imports that entry, unless it is a
 * test or a test kit, which may put a row into a state.
 */

const ROOT = join(__dirname, '..', '..', '..');
/** Where state may change: the engine, and the repositories themselves. */
const ALLOWED = [join(ROOT, 'packages', 'engine'), join(ROOT, 'packages', 'db')];
/** Benchmarks time the repository functions themselves (scripts/bench/bot-search.ts: the INSERT). */
const BENCHMARKS = join(ROOT, 'scripts', 'bench');
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'generated', 'testing']);

function productionFiles(dir: string): string[] {
  if (ALLOWED.includes(dir) || dir === BENCHMARKS) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : productionFiles(path);
    const source = /\.(tsx?|mjs|cjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name);
    return source && entry.name !== 'testing.ts' ? [path] : [];
  });
}

/** Whether a source names the state entry: an import, an export from it, a require or an import(). */
function importsStateEntry(source: string): boolean {
  return /['"`]@botfleet\/db\/state['"`]/.test(source);
}

it('holds the state changes of executions and deliveries, and only functions', () => {
  const exported = Object.entries(state as Record<string, unknown>);
  expect(exported.map(([name]) => name)).toEqual(
    expect.arrayContaining(['createExecution', 'cancelExecution', 'recordDeliveryAttempts', 'disableWebhook']),
  );
  expect(exported.filter(([, value]) => typeof value !== 'function')).toEqual([]);
});

it('tells an import of the state entry from one of the main entry or the test kit', () => {
  expect(importsStateEntry("import {\n  claimExecution,\n} from '@botfleet/db/state';")).toBe(true);
  expect(importsStateEntry('export { disableWebhook } from "@botfleet/db/state";')).toBe(true);
  expect(importsStateEntry("const { abandonDelivery } = require('@botfleet/db/state');")).toBe(true);
  expect(importsStateEntry("await import('@botfleet/db/state')")).toBe(true);
  expect(importsStateEntry("import { findBot } from '@botfleet/db';")).toBe(false);
  expect(importsStateEntry("import { findDelivery } from '@botfleet/db/testing';")).toBe(false);
});

it('is imported by no file outside packages/engine and packages/db but tests and test kits', () => {
  const files = ['apps', 'packages', 'scripts'].flatMap((dir) => productionFiles(join(ROOT, dir)));
  expect(files.length).toBeGreaterThan(50);
  expect(files.some((file) => file.includes(`${sep}apps${sep}delivery${sep}`))).toBe(true);
  const offenders = files.filter((file) => importsStateEntry(readFileSync(file, 'utf8')));
  expect(offenders.map((file) => relative(ROOT, file))).toEqual([]);
});
