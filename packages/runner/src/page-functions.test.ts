import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PAGE_FUNCTION_CASES, type PageFunctionReport } from './testing/page-function-cases';

/*
 * Every page function as `npm start` ships it: loaded through tsx (esbuild with keepNames, which
 * wraps named inner functions in a `__name` call the page does not have) in a child process, and
 * run in Chromium. Jest's swc transform adds no such call, so checking the functions in this
 * process would pass while the product failed.
 */

const ROOT = join(__dirname, '..', '..', '..');
const CHECK_SCRIPT = join(__dirname, 'testing', 'run-page-functions.ts');

let report: PageFunctionReport;

beforeAll(async () => {
  // The loader and entry shape of scripts/start.mjs.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CHECK_SCRIPT], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
    timeout: 120_000,
  });
  report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as PageFunctionReport;
}, 150_000);

it('has a case for every declared page function, and declares every case it has', () => {
  expect([...report.declared].sort()).toEqual(Object.keys(PAGE_FUNCTION_CASES).sort());
});

it.each(Object.keys(PAGE_FUNCTION_CASES))('%s runs in the page as loaded by tsx', (name) => {
  const result = report.results[name];
  expect(result).toEqual({ pageErrors: [], value: PAGE_FUNCTION_CASES[name]?.expected });
});
