import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The profile folder Playwright creates per launch and deletes only on a clean close. */
const PROFILE_PREFIX = 'playwright_chromiumdev_profile-';

export interface OrphanCleanupOptions {
  /** Where to look; the OS temp folder by default (where Playwright puts them). */
  dir?: string;
  /** Leave anything younger than this: another process may be launching with it right now. */
  graceMs?: number;
}

/** Every command line of a live process, joined by spaces (Linux /proc; empty elsewhere). */
async function liveCommandLines(): Promise<string[]> {
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const lines = await Promise.all(
    pids.map((pid) =>
      readFile(`/proc/${pid}/cmdline`, 'utf8').then(
        (raw) => raw.replaceAll('\0', ' '),
        () => '',
      ),
    ),
  );
  return lines.filter(Boolean);
}

/**
 * Removes Chromium profile folders that a killed worker left behind (about 1 MiB each): those no
 * live process names on its command line (a live Chromium has --user-data-dir=<folder>) and
 * older than the grace period.
 * Returns how many it removed. Where /proc is missing (macOS) it removes nothing, since it cannot
 * tell a live browser's folder from a dead one's.
 */
export async function removeOrphanedProfiles(options: OrphanCleanupOptions = {}): Promise<number> {
  const dir = options.dir ?? tmpdir();
  const graceMs = options.graceMs ?? 60_000;
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.startsWith(PROFILE_PREFIX));
  } catch {
    return 0;
  }
  if (names.length === 0) return 0;
  const commandLines = await liveCommandLines();
  if (commandLines.length === 0) return 0;
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory() || Date.now() - info.mtimeMs < graceMs) continue;
    if (commandLines.some((line) => line.includes(path))) continue;
    await rm(path, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
