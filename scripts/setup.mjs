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
 * What building the console takes: the packages it bundles (the console workspace's own
 * dependencies, apps aside) and Vite, which builds it. Vite is a dev dependency of the console.
 */
function consoleBuildNeeds() {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'apps/console/package.json'), 'utf8'));
  const bundled = Object.keys(manifest.dependencies ?? {}).filter((name) => !name.startsWith('@botfleet/'));
  return [...bundled, 'vite'];
}

/**
 * The packages a command needs installed, and whether `npm ci` must include dev dependencies to
 * install them. `npm start` needs `dependencies`, plus the console's build tools when the console
 * has to be built (it serves /console); tests and the bench need `devDependencies` too. The flag
 * follows what is needed, not NODE_ENV: under NODE_ENV=production `npm ci` leaves dev
 * dependencies out unless told to include them, and `npm start` would then answer 503 on /console.
 * A lean production install is the image's (or `npm run build`, `npm prune --omit=dev`,
 * `npm run start:prod`), which builds the console before pruning.
 */
export function dependencyNeeds({ dev = true, buildConsole = false } = {}) {
  const names = [...declared('dependencies'), ...(dev ? declared('devDependencies') : [])];
  if (buildConsole) names.push(...consoleBuildNeeds());
  return { names: [...new Set(names)], includeDev: dev || buildConsole };
}

/**
 * Installs dependencies with `npm ci` when the installed tree does not match the lockfile's
 * content, or lacks what this command needs (dependencyNeeds).
 */
export function ensureDependencies({ dev = true, buildConsole = false } = {}) {
  const hash = lockfileHash();
  const { names, includeDev } = dependencyNeeds({ dev, buildConsole });
  const absent = missing(names);
  if (readStamp()?.lockfile === hash && absent.length === 0) return;
  const why =
    readStamp()?.lockfile !== hash
      ? 'the lockfile changed since the last install'
      : `${absent.length} needed package(s) missing, e.g. ${absent[0]}`;
  say(`installing dependencies with npm ci (${why})`);
  run('npm', ['ci', '--no-audit', '--no-fund', ...(includeDev ? ['--include=dev'] : [])]);
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

const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * PgBouncer (Debian's package) for the tests behind a transaction pooler
 * (packages/testkit/src/pgbouncer.ts), installed when missing where that can be done: as root on
 * Debian or Ubuntu. Elsewhere it says how, and only those tests fail.
 */
export function ensurePgBouncer() {
  if (existsSync(PGBOUNCER)) return;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    say(
      'PgBouncer is missing and cannot be installed from here: `sudo apt-get install -y pgbouncer` (the pooler tests need it)',
    );
    return;
  }
  say('installing PgBouncer (Debian package) for the pooler tests');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', '--no-install-recommends', 'pgbouncer'], { env });
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

const CONSOLE = join(ROOT, 'apps/console');
const CONSOLE_BUILT = join(CONSOLE, 'dist/index.html');

/** True when the console's output is missing or older than its sources or the SDK it bundles. */
export function consoleIsStale() {
  const sources = ['src', 'index.html', 'vite.config.mjs'].map((p) => join(CONSOLE, p));
  sources.push(join(ROOT, 'packages/sdk/src'));
  const builtAt = existsSync(CONSOLE_BUILT) ? statSync(CONSOLE_BUILT).mtimeMs : 0;
  return builtAt === 0 || Math.max(...sources.map(newestMtime)) > builtAt;
}

/**
 * Builds the console (apps/console, Vite) when it is stale; the api role serves the output at
 * /console. setup() installs Vite first when the console needs it; called alone (the console's
 * tests), a tree without Vite keeps whatever was built, and says so if nothing was.
 */
export function ensureConsoleBuilt() {
  if (!consoleIsStale()) return;
  const vite = join(ROOT, 'node_modules/vite/bin/vite.js');
  if (!existsSync(vite)) {
    if (!existsSync(CONSOLE_BUILT)) {
      say('vite is not installed (dev dependency): /console will answer 503 until it is built');
    }
    return;
  }
  say('building the console (apps/console)');
  run(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: CONSOLE });
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

export function setup({ chromium = true, dev = true, pgbouncer = false } = {}) {
  // Asked before the install: a console to build needs its build tools, whatever NODE_ENV says.
  ensureDependencies({ dev, buildConsole: consoleIsStale() });
  ensurePrismaClient();
  ensureConsoleBuilt();
  if (chromium) ensureChromium();
  if (pgbouncer) ensurePgBouncer();
}
