import * as db from '@botfleet/db';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/*
 * One home for a run's life: only the engine (and the repositories it calls) changes the state of
 * an execution or a delivery. This fails when production code anywhere else imports one of the
 * repository functions that do. Tests may still use them to put a row into a state.
 */

/** Every @botfleet/db export that moves an execution or a delivery to another state. */
const STATE_WRITES = [
  'createExecution',
  'createExecutions',
  'createExecutionOnce',
  'claimExecution',
  'claimExecutionWithinCap',
  'finishExecution',
  'endExecutionAttempt',
  'failUnfinishedExecution',
  'cancelExecution',
  'cancelBotExecutions',
  'requeueExecution',
  'createEventDeliveries',
  'claimDueDeliveries',
  'releaseDeliveryClaim',
  'recordDeliveryAttempt',
  'recordDeliveryAttempts',
  'restartDelivery',
  'abandonDelivery',
] as const;

const ROOT = join(__dirname, '..', '..', '..');
/** Where state may change: the engine, and the repositories themselves. */
const ALLOWED = [join(ROOT, 'packages', 'engine'), join(ROOT, 'packages', 'db')];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'generated', 'testing']);

function productionFiles(dir: string): string[] {
  if (ALLOWED.includes(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : productionFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.(test|soak\.test|e2e\.test)\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The names a file imports from @botfleet/db (`import { a, type B, c as d } from '@botfleet/db'`). */
function namesImportedFromDb(source: string): string[] {
  const names: string[] = [];
  for (const match of source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'@botfleet\/db'/g)) {
    for (const part of match[1]!.split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!
        .trim();
      if (name) names.push(name);
    }
  }
  return names;
}

it('names only functions @botfleet/db exports', () => {
  const exported = db as unknown as Record<string, unknown>;
  expect(STATE_WRITES.filter((name) => typeof exported[name] !== 'function')).toEqual([]);
});

it('reads every name of a multi-line, aliased or type import', () => {
  const source = "import {\n  findBot,\n  cancelExecution as cancel,\n  type Db,\n} from '@botfleet/db';";
  expect(namesImportedFromDb(source)).toEqual(['findBot', 'cancelExecution', 'Db']);
});

it('no production file outside packages/engine and packages/db changes a run’s or a delivery’s state', () => {
  const files = [...productionFiles(join(ROOT, 'apps')), ...productionFiles(join(ROOT, 'packages'))];
  expect(files.length).toBeGreaterThan(50);
  const offenders = files.flatMap((file) => {
    const writes = namesImportedFromDb(readFileSync(file, 'utf8')).filter((name) =>
      (STATE_WRITES as readonly string[]).includes(name),
    );
    return writes.map((name) => `${relative(ROOT, file)}: ${name}`);
  });
  expect(offenders).toEqual([]);
});
