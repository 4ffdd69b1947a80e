import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonOutput, startCliApiFixture, type CliApiFixture, type CliResult, type CliRunOptions } from './testing';

/*
 * `botfleet credentials ...` as a script runs it: a child process configured by BOTFLEET_URL and
 * BOTFLEET_API_KEY, secrets given on standard input, in files or in variables, never as arguments.
 */

const PASSWORD = 'cli-secret-pass-31';
const ROTATED = 'cli-rotated-pass-77';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const SHOP = 'https://shop.example';

let f: CliApiFixture;
beforeAll(async () => {
  f = await startCliApiFixture('credentials');
});
afterAll(async () => {
  await f?.close();
});

const botfleet = (args: string[], options?: CliRunOptions) => f.cli.run(args, options);

/** Runs a command that must succeed and parses its --json output, which must not show a secret. */
async function json<T>(args: string[], options?: CliRunOptions): Promise<T> {
  const result = await botfleet([...args, '--json'], options);
  expectNoSecret(result);
  return jsonOutput<T>(args, result);
}

function expectNoSecret(result: CliResult) {
  for (const secret of [PASSWORD, ROTATED, TOTP_SECRET]) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

function file(name: string, content: string): string {
  const path = join(f.dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

interface CredentialJson {
  id: string;
  name: string;
  username: string | null;
  origins: string[];
  hasPassword: boolean;
  hasTotp: boolean;
  totp: { algorithm: string; digits: number; period: number } | null;
}

it('creates with the password on stdin and the TOTP from a file, rotates from a variable, lists and deletes', async () => {
  const created = await json<CredentialJson>(
    ['credentials', 'create', '--name', 'shop', '--origin', SHOP, '--username', 'alice', '--password-stdin'],
    { stdin: `${PASSWORD}\n` },
  );
  expect(created).toMatchObject({
    name: 'shop',
    username: 'alice',
    origins: [SHOP],
    hasPassword: true,
    hasTotp: false,
  });
  // The final newline of the pipe is not part of the password.
  const row = await f.api.db.credential.findUniqueOrThrow({ where: { id: created.id } });
  expect(f.api.deps.secretBox.decrypt(row.passwordEnc!)).toBe(PASSWORD);

  const withTotp = await json<CredentialJson>([
    'credentials',
    'update',
    created.id,
    '--otpauth-uri-file',
    file('uri.txt', `otpauth://totp/Shop:alice?secret=${TOTP_SECRET}&digits=8\n`),
  ]);
  expect(withTotp).toMatchObject({ hasTotp: true, totp: { algorithm: 'SHA1', digits: 8, period: 30 } });

  const rotated = await json<CredentialJson>(
    ['credentials', 'update', created.id, '--password-env', 'SHOP_PASSWORD', '--remove-totp', '--remove-username'],
    { env: { SHOP_PASSWORD: ROTATED } },
  );
  expect(rotated).toMatchObject({ username: null, hasPassword: true, hasTotp: false, totp: null });
  const after = await f.api.db.credential.findUniqueOrThrow({ where: { id: created.id } });
  expect(f.api.deps.secretBox.decrypt(after.passwordEnc!)).toBe(ROTATED);

  const fromFile = await json<CredentialJson>([
    'credentials',
    'create',
    '--name',
    'second',
    '--origin',
    SHOP,
    '--password-file',
    file('password.txt', `${PASSWORD}\n`),
    '--totp-secret-file',
    file('secret.txt', `${TOTP_SECRET}\n`),
  ]);
  expect(fromFile).toMatchObject({ hasPassword: true, hasTotp: true, totp: { digits: 6 } });

  const listed = await json<{ data: CredentialJson[] }>(['credentials', 'list'], { key: f.org.keys.read });
  expect(listed.data.map((c) => c.name)).toEqual(['second', 'shop']);
  const text = await botfleet(['credentials', 'get', created.id], { key: f.org.keys.read });
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/password\s+set/);
  expectNoSecret(text);

  expect(await json(['credentials', 'delete', fromFile.id])).toEqual({ id: fromFile.id, deleted: true });
  const gone = await botfleet(['credentials', 'get', fromFile.id, '--json']);
  expect(gone.code).toBe(3);
  expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'not_found', status: 404 } });
});

it('refuses secrets given as arguments without repeating them, and other bad command lines', async () => {
  for (const flag of ['--password', '--totp-secret', '--otpauth-uri']) {
    const refused = await botfleet(['credentials', 'create', '--name', 'argv', flag, PASSWORD]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${flag} is not taken as an argument`);
    expectNoSecret(refused);
  }
  const twoWays = await botfleet(['credentials', 'create', '--name', 'x', '--password-stdin', '--password-env', 'P'], {
    env: { P: PASSWORD },
  });
  expect(twoWays.code).toBe(2);
  const unset = await botfleet(['credentials', 'create', '--name', 'x', '--password-env', 'BOTFLEET_TEST_UNSET_VAR']);
  expect(unset.code).toBe(2);
  expect(unset.stderr).toContain('BOTFLEET_TEST_UNSET_VAR is not set');
  expect((await botfleet(['credentials', 'update', 'crd_x'])).code).toBe(2);
  expect((await botfleet(['credentials', 'get'])).code).toBe(2);

  // The API's refusal of a bad secret names the field, not the secret.
  const bad = await botfleet(
    ['credentials', 'create', '--name', 'bad', '--origin', SHOP, '--totp-secret-env', 'S', '--json'],
    { env: { S: `${PASSWORD}!` } },
  );
  expect(bad.code).toBe(3);
  expect(JSON.parse(bad.stderr)).toMatchObject({ error: { code: 'validation_error', status: 400 } });
  expectNoSecret(bad);
});

it('takes origins with a repeatable --origin, and changes them only with an admin key', async () => {
  const missing = await botfleet(['credentials', 'create', '--name', 'anywhere']);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('needs --origin');

  const created = await json<CredentialJson>([
    'credentials',
    'create',
    '--name',
    'two sites',
    '--origin',
    SHOP,
    '--origin',
    'https://Login.Shop.Example:8443',
  ]);
  expect(created.origins).toEqual([SHOP, 'https://login.shop.example:8443']);
  const text = await botfleet(['credentials', 'get', created.id]);
  expect(text.stderr).toBe('');
  expect(text.stdout).toMatch(/origins\s+https:\/\/shop\.example https:\/\/login\.shop\.example:8443/);

  const widened = await botfleet([
    'credentials',
    'update',
    created.id,
    '--origin',
    'https://attacker.example',
    '--json',
  ]);
  expect(widened.code).toBe(3);
  expect(JSON.parse(widened.stderr)).toMatchObject({ error: { code: 'forbidden', status: 403 } });
  const asAdmin = await json<CredentialJson>(['credentials', 'update', created.id, '--origin', SHOP], {
    key: f.org.keys.admin,
  });
  expect(asAdmin.origins).toEqual([SHOP]);
});
