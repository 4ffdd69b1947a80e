import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/*
 * `NODE_ENV=production npm start` must serve the console too. The set-up (scripts/setup.mjs) is
 * run here, the real file, in a copy of the repository's layout of its own: the shared
 * node_modules is never reinstalled. Two things cannot run here and are stood in for: `npm ci`
 * (a script that installs as npm does, leaving dev dependencies out under NODE_ENV=production
 * unless `--include=dev` is given, and records its arguments) and Vite (writes dist/index.html).
 */
const SETUP = join(__dirname, '..', '..', '..', 'scripts', 'setup.mjs');

const FAKE_NPM = `#!/bin/sh
echo "$*" >> "$FAKE_ROOT/npm-calls"
install() { mkdir -p "$FAKE_ROOT/node_modules/$1/bin"; echo '{}' > "$FAKE_ROOT/node_modules/$1/package.json"; }
install pg
install preact
case " $* " in
  *" --include=dev "*) dev=1 ;;
  *) [ "$NODE_ENV" = production ] && dev=0 || dev=1 ;;
esac
if [ "$dev" = 1 ]; then
  install vite
  install jest
  printf '%s\\n' "require('fs').mkdirSync('dist', { recursive: true });" \\
    "require('fs').writeFileSync('dist/index.html', 'console');" > "$FAKE_ROOT/node_modules/vite/bin/vite.js"
fi
`;

interface Fake {
  /** Removes the dev dependencies, as `npm prune --omit=dev` does. */
  prune(): void;
  /** Runs the set-up as `npm start` does (scripts/start.mjs, Chromium aside). */
  start(env: NodeJS.ProcessEnv): { status: number | null; stderr: string };
  /** The arguments of each `npm` the set-up ran, since the last start. */
  npmCalls(): string[];
  consoleBuilt(): boolean;
  /** Built, and not older than its sources. */
  consoleIsCurrent(): boolean;
  /** Rewrites a console source, as a pull that changes the console does. */
  touchConsoleSource(): void;
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A fresh clone: the set-up, manifests, console sources and a current Prisma client; nothing installed or built. */
function freshClone(): Fake {
  const root = mkdtempSync(join(tmpdir(), 'botfleet-setup-'));
  roots.push(root);
  write(join(root, 'scripts/setup.mjs'), readFileSync(SETUP, 'utf8'));
  write(
    join(root, 'package.json'),
    JSON.stringify({
      dependencies: { pg: '1.0.0' },
      devDependencies: { jest: '1.0.0', preact: '1.0.0', vite: '1.0.0' },
    }),
  );
  write(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
  write(
    join(root, 'apps/console/package.json'),
    JSON.stringify({ dependencies: { '@botfleet/sdk': '*', preact: '1.0.0' }, devDependencies: { vite: '1.0.0' } }),
  );
  write(join(root, 'apps/console/index.html'), '<!doctype html>');
  write(join(root, 'apps/console/src/main.tsx'), 'export {};');
  write(join(root, 'packages/sdk/src/index.ts'), 'export {};');
  // A Prisma client generated from the schema there, so the set-up leaves it alone.
  const schema = 'generator client {}\n';
  write(join(root, 'prisma/schema.prisma'), schema);
  write(join(root, 'packages/db/src/generated/prisma/client.ts'), 'export {};');
  write(
    join(root, 'packages/db/src/generated/prisma/.schema-sha256'),
    `${createHash('sha256').update(schema).digest('hex')}\n`,
  );
  write(join(root, 'bin/npm'), FAKE_NPM);
  chmodSync(join(root, 'bin/npm'), 0o755);

  const calls = join(root, 'npm-calls');
  const node = (env: NodeJS.ProcessEnv, call: string) => {
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import('./scripts/setup.mjs').then((s) => process.stdout.write(JSON.stringify(s.${call}) ?? ''))`,
      ],
      {
        cwd: root,
        env: { PATH: `${join(root, 'bin')}:${process.env.PATH}`, FAKE_ROOT: root, ...env },
        encoding: 'utf8',
      },
    );
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  };
  return {
    prune() {
      for (const name of ['vite', 'jest']) rmSync(join(root, 'node_modules', name), { recursive: true, force: true });
    },
    start(env) {
      rmSync(calls, { force: true });
      return node(env, 'setup({ chromium: false, dev: false })');
    },
    npmCalls: () => (existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : []),
    consoleBuilt: () => existsSync(join(root, 'apps/console/dist/index.html')),
    consoleIsCurrent: () => node({}, 'consoleIsStale()').stdout === 'false',
    touchConsoleSource() {
      writeFileSync(join(root, 'apps/console/src/main.tsx'), 'export const changed = true;');
      // Built an hour before the change, whatever the file system's time resolution.
      const before = new Date(Date.now() - 3_600_000);
      utimesSync(join(root, 'apps/console/dist/index.html'), before, before);
    },
  };
}

describe('NODE_ENV=production npm start', () => {
  const production = { NODE_ENV: 'production' };

  it('installs the console build tools on a fresh clone and builds the console', () => {
    const clone = freshClone();
    const started = clone.start(production);
    expect(started.status).toBe(0);
    expect(clone.npmCalls()).toEqual([expect.stringMatching(/^ci .*--include=dev/)]);
    expect(clone.consoleBuilt()).toBe(true);
    expect(started.stderr).not.toContain('/console will answer 503');

    // Nothing left to do the next time.
    expect(clone.start(production).status).toBe(0);
    expect(clone.npmCalls()).toEqual([]);
  });

  it('runs without dev dependencies while the console is current, and installs them to build a changed one', () => {
    const clone = freshClone();
    expect(clone.start({ NODE_ENV: 'development' }).status).toBe(0);
    expect(clone.consoleBuilt()).toBe(true);
    clone.prune();
    expect(clone.start(production).status).toBe(0);
    expect(clone.npmCalls()).toEqual([]);

    clone.touchConsoleSource();
    const started = clone.start(production);
    expect(started.status).toBe(0);
    expect(started.stderr).toContain('needed package(s) missing, e.g. vite');
    expect(clone.npmCalls()).toEqual([expect.stringMatching(/^ci .*--include=dev/)]);
    expect(clone.consoleIsCurrent()).toBe(true);
  });
});
