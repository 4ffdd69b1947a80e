import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCliApiFixture, type CliApiFixture } from './testing';

/*
 * `botfleet bots versions|version|restore` as a script runs them: a child process against the
 * real API, reading text and --json output and exit codes. Versions need no worker.
 */

let f: CliApiFixture;
beforeAll(async () => {
  f = await startCliApiFixture('versions');
});
afterAll(async () => {
  await f?.close();
});

const botfleet = (args: string[], key?: string) => f.cli.run(args, { key });
const json = <T>(args: string[], key?: string) => f.cli.json<T>(args, { key });

it('lists a bot’s versions, shows one with its secret masked, and restores it', async () => {
  const botId = await f.api.newBot(
    f.org,
    {},
    { manifest: { webhook: { url: 'https://hooks.example/in', auth: 'hmac', secret: 'cli-hook-secret' } } },
  );
  const stepsFile = join(f.dir, 'steps.json');
  writeFileSync(stepsFile, JSON.stringify([{ action: 'goto', url: 'https://a.example/' }]));
  expect((await botfleet(['bots', 'steps', botId, '--file', stepsFile])).code).toBe(0);

  const listed = await botfleet(['bots', 'versions', botId], f.org.keys.read);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toMatch(/^3\*\s+\S+\s+steps 0 -> 1; scripts 0 -> 1$/m);
  expect(listed.stdout).toMatch(/^2\s+\S+\s+manifest: webhook$/m);
  expect(listed.stdout).toMatch(/^1\s+\S+\s+created$/m);
  const page = await json<{ data: { version: number }[]; nextCursor: string | null }>([
    'bots',
    'versions',
    botId,
    '--limit',
    '2',
  ]);
  expect(page.data.map((v) => v.version)).toEqual([3, 2]);
  expect(page.nextCursor).toBe('2');

  const shown = await botfleet(['bots', 'version', botId, '2'], f.org.keys.read);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('steps: none');
  expect(shown.stdout).toContain('"secret": "********"');
  expect(shown.stdout).not.toContain('cli-hook-secret');

  const restored = await botfleet(['bots', 'restore', botId, '2']);
  expect(restored).toMatchObject({ code: 0, stdout: `Restored version 2 of ${botId} as version 4.\n` });
  const again = await botfleet(['bots', 'restore', botId, '4']);
  expect(again.stdout).toContain('Nothing to restore');
  const current = await json<{ version: number; restoredFrom: number; steps: unknown[] }>([
    'bots',
    'version',
    botId,
    '4',
  ]);
  expect(current).toMatchObject({ version: 4, restoredFrom: 2, steps: [] });
});

it('refuses a version that is not a number before calling the API, and reports the API’s 404', async () => {
  const botId = await f.api.newBot(f.org);
  const bad = await botfleet(['bots', 'version', botId, 'latest']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('whole number');
  const missing = await botfleet(['bots', 'restore', botId, '9']);
  expect(missing.code).toBe(3);
  expect(missing.stderr).toContain('not found');
  expect((await botfleet(['bots', 'restore', botId, '1'], f.org.keys.read)).code).toBe(3);
});
