import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

/*
 * The committed client in src/generated is what @hey-api/openapi-ts makes of the committed
 * openapi.json (which apps/api's tests keep equal to the served document): regenerate it with
 * `npm run sdk:generate` when this fails.
 */

const SDK = join(__dirname, '..');
const ROOT = join(SDK, '..', '..');

function filesUnder(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

it('is what openapi-ts generates from openapi.json', async () => {
  const out = mkdtempSync(join(tmpdir(), 'botfleet-sdk-'));
  try {
    await promisify(execFile)(
      join(ROOT, 'node_modules', '.bin', 'openapi-ts'),
      ['-f', join(SDK, 'openapi-ts.config.mjs'), '--silent', '--no-log-file'],
      { cwd: SDK, env: { ...process.env, SDK_OUTPUT_DIR: out } },
    );
    expect(filesUnder(join(SDK, 'src', 'generated'))).toEqual(filesUnder(out));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
