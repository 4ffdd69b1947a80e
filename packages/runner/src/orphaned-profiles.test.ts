import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeOrphanedProfiles } from './orphaned-profiles';

describe('removeOrphanedProfiles', () => {
  const dir = mkdtempSync(join(tmpdir(), 'botfleet-orphans-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const profile = (name: string, ageMs: number) => {
    const path = join(dir, `playwright_chromiumdev_profile-${name}`);
    mkdirSync(join(path, 'Default'), { recursive: true });
    const when = new Date(Date.now() - ageMs);
    utimesSync(path, when, when);
    return path;
  };

  it('removes the old profiles of dead browsers and keeps live, fresh and unrelated folders', async () => {
    const dead = profile('dead', 10 * 60_000);
    const fresh = profile('fresh', 0);
    const live = profile('live', 10 * 60_000);
    const unrelated = join(dir, 'something-else');
    mkdirSync(unrelated);
    // Stands in for a Chromium still running with that profile.
    const browser = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', '--', `--user-data-dir=${live}`], {
      stdio: 'ignore',
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await removeOrphanedProfiles({ dir, graceMs: 60_000 })).toBe(1);
      expect([existsSync(dead), existsSync(fresh), existsSync(live), existsSync(unrelated)]).toEqual([
        false,
        true,
        true,
        true,
      ]);
    } finally {
      browser.kill('SIGKILL');
    }
  });

  it('does nothing in a folder without profiles', async () => {
    expect(await removeOrphanedProfiles({ dir: join(dir, 'missing') })).toBe(0);
  });
});
