#!/usr/bin/env node
// Makes sure a Chromium for the runner exists before `npm install` (so: plain Node, no
// dependencies). Order matches packages/runner/src/chromium-path.ts: CHROMIUM_PATH, the Debian
// package at /usr/bin/chromium, then a browser Playwright downloaded. Installs the Debian package
// as a last resort: Debian's chromium matches Playwright 1.64's protocol (Chromium 156).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

function found(where, file) {
  console.log(`Chromium found (${where}): ${file}`);
  process.exit(0);
}

/** Playwright's download: ask playwright-core when installed, else look in its cache folder. */
async function playwrightChromium() {
  try {
    const { chromium } = await import('playwright-core');
    const file = chromium.executablePath();
    if (file && existsSync(file)) return file;
  } catch {
    // Not installed yet: this script runs before `npm install`.
  }
  const cache = process.env.PLAYWRIGHT_BROWSERS_PATH || path.join(os.homedir(), '.cache', 'ms-playwright');
  let builds;
  try {
    builds = readdirSync(cache)
      .filter((name) => /^chromium-\d+$/.test(name))
      .sort()
      .reverse();
  } catch {
    return null;
  }
  for (const build of builds) {
    for (const dir of ['chrome-linux64', 'chrome-linux']) {
      const file = path.join(cache, build, dir, 'chrome');
      if (existsSync(file)) return file;
    }
  }
  return null;
}

function isDebianLike() {
  try {
    const release = readFileSync('/etc/os-release', 'utf8');
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(release);
  } catch {
    return false;
  }
}

function run(command, args) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) {
    console.error(`${command} failed (exit ${result.status ?? result.signal ?? result.error?.message}).`);
    process.exit(1);
  }
}

const explicit = process.env.CHROMIUM_PATH?.trim();
if (explicit) {
  if (existsSync(explicit)) found('CHROMIUM_PATH', explicit);
  console.warn(`CHROMIUM_PATH is set to ${explicit}, which does not exist; looking elsewhere.`);
}
if (existsSync(SYSTEM_CHROMIUM)) found('system package', SYSTEM_CHROMIUM);
const downloaded = await playwrightChromium();
if (downloaded) found('Playwright download', downloaded);

const manual =
  'Install it with `sudo apt-get update && sudo apt-get install -y chromium` (Debian), ' +
  'or set CHROMIUM_PATH to a Chromium 156 executable, ' +
  'or after `npm install` run `npx playwright-core install chromium`.';

if (process.platform !== 'linux' || !isDebianLike()) {
  console.error(
    `No Chromium found, and this is not Debian/Ubuntu, so it cannot be installed automatically.\n${manual}`,
  );
  process.exit(1);
}
if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
  console.error(`No Chromium found. Installing the system package needs root.\n${manual}`);
  process.exit(1);
}

console.log('No Chromium found: installing the Debian package "chromium".');
run('apt-get', ['update']);
run('apt-get', ['install', '-y', '--no-install-recommends', 'chromium']);
if (existsSync(SYSTEM_CHROMIUM)) found('system package, just installed', SYSTEM_CHROMIUM);
console.error(
  `apt-get installed chromium but ${SYSTEM_CHROMIUM} is missing (on Ubuntu the package may be a snap stub).\n${manual}`,
);
process.exit(1);
