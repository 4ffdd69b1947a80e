import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { createApiHarness } from '../testing';

/*
 * The document the API serves passes Spectral's `spectral:oas` ruleset (.spectral.yaml) and
 * Redocly's `recommended` (redocly.yaml) with no error and no warning, so CI keeps it that way.
 */

const ROOT = join(__dirname, '..', '..', '..', '..');
const run = promisify(execFile);
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

let dir: string;
let file: string;
beforeAll(async () => {
  const h = await createApiHarness();
  try {
    const served: unknown = (await request(h.app).get('/api/v1/openapi.json').expect(200)).body;
    dir = mkdtempSync(join(tmpdir(), 'botfleet-openapi-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(served, null, 2));
  } finally {
    await h.close();
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a linter; both exit non-zero when they find something, and then the output says what. */
async function lint(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    return stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} failed:\n${stdout ?? ''}\n${stderr ?? ''}`, { cause: err });
  }
}

it('passes spectral:oas with no problem of any severity', async () => {
  const out = await lint(bin('spectral'), [
    'lint',
    file,
    '--ruleset',
    join(ROOT, '.spectral.yaml'),
    '--fail-severity',
    'hint',
    '--format',
    'json',
    '--quiet',
  ]);
  expect(JSON.parse(out.trim() || '[]')).toEqual([]);
});

it('passes Redocly recommended with no error and no warning', async () => {
  const out = await lint(bin('redocly'), ['lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json']);
  const report = JSON.parse(out.slice(out.indexOf('{'))) as { totals: Record<string, number>; problems: unknown[] };
  expect(report.problems).toEqual([]);
  expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
});
