// Set-up shared by `npm start`, `npm test` and `npm run bench`. Plain Node with no dependencies,
// because it runs before `npm install` on a fresh clone.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

const LOCKFILE = join(ROOT, 'package-lock.json');
/** What the last install was made from; compared by content, since a checkout rewrites file times. */
const INSTALL_STAMP = join(ROOT, 'node_modules', '.botfleet-install.json');

function lockfileHash() {
  return createHash('sha256').update(readFileSync(LOCKFILE)).digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(INSTALL_STAMP, 'utf8'));
  } catch {
    return null;
  }
}

/** The root package's dependency names of one kind, all of which must be installed. */
function declared(kind) {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  return Object.keys(manifest[kind] ?? {});
}

function missing(names) {
  return names.filter((name) => !existsSync(join(ROOT, 'node_modules', name, 'package.json')));
}

/**
 * Installs dependencies with `npm ci` when the installed tree does not match the lockfile's
 * content, or lacks what this command needs: `npm start` needs `dependencies`; tests and the
 * bench need `devDependencies` too, which `npm ci` leaves out under NODE_ENV=production.
 */
export function ensureDependencies({ dev = true } = {}) {
  const hash = lockfileHash();
  const needed = [...declared('dependencies'), ...(dev ? declared('devDependencies') : [])];
  const absent = missing(needed);
  if (readStamp()?.lockfile === hash && absent.length === 0) return;
  const why =
    readStamp()?.lockfile !== hash
      ? 'the lockfile changed since the last install'
      : `${absent.length} needed package(s) missing, e.g. ${absent[0]}`;
  say(`installing dependencies with npm ci (${why})`);
  run('npm', ['ci', '--no-audit', '--no-fund', ...(dev ? ['--include=dev'] : [])]);
  writeFileSync(INSTALL_STAMP, `${JSON.stringify({ lockfile: hash, installedAt: new Date().toISOString() })}\n`);
}

/** Generates the Prisma client when it is missing or was generated from another schema. */
export function ensurePrismaClient() {
  const generatedDir = join(ROOT, 'packages/db/src/generated/prisma');
  const stampFile = join(generatedDir, '.schema-sha256');
  const schemaHash = createHash('sha256')
    .update(readFileSync(join(ROOT, 'prisma/schema.prisma')))
    .digest('hex');
  if (
    existsSync(join(generatedDir, 'client.ts')) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === schemaHash
  )
    return;
  say('generating the Prisma client');
  // Generation never calls the schema engine, but the CLI insists on a path to one; any existing
  // file satisfies it, which avoids a download this environment cannot make.
  run(process.execPath, [join(ROOT, 'node_modules/prisma/build/index.js'), 'generate'], {
    env: {
      ...process.env,
      PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
      PRISMA_HIDE_UPDATE_MESSAGE: '1',
    },
  });
  writeFileSync(stampFile, `${schemaHash}\n`);
}

/** Makes sure a Chromium is installed (Debian's package when none is found). */
export function ensureChromium() {
  run(process.execPath, [join(ROOT, 'scripts/ensure-chromium.mjs')]);
}

/** The newest modification time of the files under `path` (a file or a directory), skipping tests. */
function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return /\.test\.ts$/.test(path) ? 0 : stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'testing' || entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/**
 * Builds the console (apps/console, Vite) when its output is missing or older than its sources or
 * the SDK it bundles; the api role serves the output at /console. Vite is a dev dependency: an
 * install without it (NODE_ENV=production) keeps whatever was built, and says so if nothing was.
 */
export function ensureConsoleBuilt() {
  const app = join(ROOT, 'apps/console');
  const built = join(app, 'dist/index.html');
  const sources = ['src', 'index.html', 'vite.config.mjs'].map((p) => join(app, p));
  sources.push(join(ROOT, 'packages/sdk/src'));
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  if (builtAt > 0 && Math.max(...sources.map(newestMtime)) <= builtAt) return;
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  if (!existsSync(vite)) {
    if (builtAt === 0) say('vite is not installed (dev dependency): /console will answer 503 until it is built');
    return;
  }
  say('building the console (apps/console)');
  run(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: app });
}

/** Runs a TypeScript entry point with tsx, forwarding its exit code. */
export function runTs(file, args = [], env = process.env) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, file), ...args], {
    cwd: ROOT,
    stdio: 'inherit',
    env,
  });
  return result.status ?? 1;
}

export function setup({ chromium = true, dev = true } = {}) {
  ensureDependencies({ dev });
  ensurePrismaClient();
  ensureConsoleBuilt();
  if (chromium) ensureChromium();
}
