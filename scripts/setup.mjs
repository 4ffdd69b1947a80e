// Set-up shared by `npm start`, `npm test` and `npm run bench`. Plain Node with no dependencies,
// because it runs before `npm install` on a fresh clone.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    const why = result.signal ? `signal ${result.signal}` : `exit code ${result.status}`;
    throw new Error(`${command} ${args.join(' ')} failed (${why})`);
  }
}

function say(message) {
  process.stderr.write(`[setup] ${message}\n`);
}

/** Installs dependencies when node_modules is missing or older than the lockfile. */
export function ensureDependencies() {
  const marker = join(ROOT, 'node_modules', '.package-lock.json');
  const lock = join(ROOT, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  say('installing dependencies (npm ci)');
  try {
    run('npm', ['ci', '--no-audit', '--no-fund']);
  } catch {
    // npm 11 may write a lockfile without other platforms' optional packages and then refuse
    // it in `npm ci`; `npm install` honours the same pinned versions and repairs the lockfile.
    say('npm ci refused the lockfile; falling back to npm install');
    run('npm', ['install', '--no-audit', '--no-fund']);
  }
}

/** Generates the Prisma client when it is missing or older than the schema. */
export function ensurePrismaClient() {
  const generated = join(ROOT, 'packages/db/src/generated/prisma/client.ts');
  const schema = join(ROOT, 'prisma/schema.prisma');
  if (existsSync(generated) && statSync(generated).mtimeMs >= statSync(schema).mtimeMs) return;
  say('generating the Prisma client');
  // Generation never calls the schema engine, but the CLI insists on a path to one; any existing
  // file satisfies it, which avoids a download this environment cannot make.
  run(process.execPath, [join(ROOT, 'node_modules/prisma/build/index.js'), 'generate'], {
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
}

/** Makes sure a Chromium is installed (Debian's package when none is found). */
export function ensureChromium() {
  run(process.execPath, [join(ROOT, 'scripts/ensure-chromium.mjs')]);
}

/** Runs a TypeScript entry point with tsx, forwarding its exit code. */
export function runTs(file, args = [], env = process.env) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, file), ...args], { cwd: ROOT, stdio: 'inherit', env });
  return result.status ?? 1;
}

export function setup({ chromium = true } = {}) {
  ensureDependencies();
  ensurePrismaClient();
  if (chromium) ensureChromium();
}
