import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCliApiFixture, type CliApiFixture } from './testing';

/*
 * `botfleet profiles ...` as a script runs it: a child process configured by BOTFLEET_URL and
 * BOTFLEET_API_KEY against the real API, reading --json output and exit codes. Profiles need no
 * worker, so this suite starts the API alone.
 */

let f: CliApiFixture;
beforeAll(async () => {
  f = await startCliApiFixture('profiles');
});
afterAll(async () => {
  await f?.close();
});

const botfleet = (args: string[], key?: string) => f.cli.run(args, { key });
const json = <T>(args: string[], key?: string) => f.cli.json<T>(args, { key });

/** A state as a browser saves it (Playwright's storageState), with values no read may show. */
const STATE = {
  cookies: [
    {
      name: 'sid',
      value: 'cli-cookie-secret',
      domain: '.shop.example',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    },
  ],
  origins: [{ origin: 'https://shop.example', localStorage: [{ name: 'token', value: 'cli-storage-secret' }] }],
};

interface ProfileJson {
  id: string;
  name: string;
  version: number;
  origins: { origin: string; cookies: number; localStorageKeys: number }[];
}

it('creates, imports, shows, exports, renames, resets and deletes a profile', async () => {
  const created = await json<ProfileJson>(['profiles', 'create', '--name', 'cli shop', '--description', 'login']);
  expect(created).toMatchObject({ id: expect.stringMatching(/^prf_/), name: 'cli shop', version: 0, origins: [] });
  const listed = await json<{ data: { id: string }[] }>(['profiles', 'list'], f.org.keys.read);
  expect(listed.data.map((p) => p.id)).toContain(created.id);

  const stateFile = join(f.dir, 'state.json');
  writeFileSync(stateFile, JSON.stringify(STATE, null, 2));
  const imported = await json<ProfileJson>(['profiles', 'import', created.id, stateFile], f.org.keys.admin);
  expect(imported).toMatchObject({
    version: 1,
    origins: [{ origin: 'https://shop.example', cookies: 1, localStorageKeys: 1 }],
  });

  // What anyone with a read key sees: origins and counts, never a value.
  const shown = await botfleet(['profiles', 'get', created.id], f.org.keys.read);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toContain('https://shop.example');
  for (const secret of ['cli-cookie-secret', 'cli-storage-secret']) expect(shown.stdout).not.toContain(secret);

  // Export: to standard output, or to a file only its owner can read.
  const exported = await botfleet(['profiles', 'export', created.id], f.org.keys.admin);
  expect(exported.code).toBe(0);
  expect(JSON.parse(exported.stdout)).toEqual(STATE);
  const out = join(f.dir, 'exported.json');
  const written = await botfleet(['profiles', 'export', created.id, '--out', out], f.org.keys.admin);
  expect(written.code).toBe(0);
  expect(written.stdout).toContain(`Wrote ${out}`);
  expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(STATE);
  expect(statSync(out).mode & 0o777).toBe(0o600);

  const renamed = await json<ProfileJson>(['profiles', 'rename', created.id, '--name', 'cli shop 2']);
  expect(renamed.name).toBe('cli shop 2');
  const reset = await json<ProfileJson>(['profiles', 'reset', created.id]);
  expect(reset).toMatchObject({ version: 2, origins: [] });
  const versions = await json<{ version: number; source: string }[]>(['profiles', 'versions', created.id]);
  expect(versions.map((v) => [v.version, v.source])).toEqual([
    [2, 'reset'],
    [1, 'import'],
  ]);
  const table = await botfleet(['profiles', 'versions', created.id]);
  expect(table.stdout).toMatch(/^VERSION\s+SOURCE/);

  expect(await json(['profiles', 'delete', created.id])).toEqual({ id: created.id, deleted: true });
  const gone = await botfleet(['profiles', 'get', created.id, '--json']);
  expect(gone.code).toBe(3);
  expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'not_found', status: 404 } });
});

it('exits 3 with the API’s error when the key may not export or import, or the state is malformed', async () => {
  const { id } = await json<ProfileJson>(['profiles', 'create', '--name', 'cli guarded']);
  const refused = await botfleet(['profiles', 'export', id, '--json'], f.org.keys.write);
  expect(refused.code).toBe(3);
  expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'forbidden', status: 403 } });

  const bad = join(f.dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ cookies: [{ name: 'sid', value: 'v' }] }));
  const malformed = await botfleet(['profiles', 'import', id, bad, '--json'], f.org.keys.admin);
  expect(malformed.code).toBe(3);
  expect(JSON.parse(malformed.stderr)).toMatchObject({
    error: { code: 'validation_error', status: 400, details: [expect.objectContaining({ path: 'cookies.0.domain' })] },
  });
});

it('exits 2 for a bad command line', async () => {
  expect((await botfleet(['profiles', 'get'])).code).toBe(2);
  expect((await botfleet(['profiles', 'rename', 'prf_x'])).code).toBe(2);
  const noFile = await botfleet(['profiles', 'import', 'prf_x']);
  expect(noFile.code).toBe(2);
  expect(noFile.stderr).toContain('profiles import takes a profile id and one state file');
  const notJson = join(f.dir, 'not.json');
  writeFileSync(notJson, 'cookies=1');
  expect((await botfleet(['profiles', 'import', 'prf_x', notJson], f.org.keys.admin)).code).toBe(2);
  expect((await botfleet(['profiles', 'frobnicate'])).code).toBe(2);
});
