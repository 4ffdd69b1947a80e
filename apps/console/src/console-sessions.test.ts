import { saveProfileVersion } from '@botfleet/db';
import { createTestExecution } from '@botfleet/db/testing';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import request from 'supertest';
import {
  expectNoSecretShown,
  openConsole,
  recordApiWrites,
  signIn,
  snap,
  startConsoleFixture,
  type ConsoleFixture,
} from './testing';

/*
 * The console's profiles and credentials in Chromium against a running botfleet: what a person
 * does to keep bots logged in, and what a read key may not do. Secrets go in through the pages
 * and must never come back out on them: every check of a page's text looks for them too.
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
}, 120_000);
afterAll(() => f?.close());

const PASSWORD = 'hunter2-Console-Pa55';
const ROTATED_PASSWORD = 'rotated-Console-Pa55';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const ROTATED_TOTP_SECRET = 'KRUGS4ZANFZSAYJAONSWG4TFOQQQ';
const COOKIE_VALUE = 'cookie-value-never-shown-3141';
const STORAGE_VALUE = 'storage-value-never-shown-2718';
const SECRETS = [PASSWORD, ROTATED_PASSWORD, TOTP_SECRET, ROTATED_TOTP_SECRET, COOKIE_VALUE, STORAGE_VALUE];

/** What a person exports from their own browser after logging in. */
const STORAGE_STATE = {
  cookies: [
    {
      name: 'sid',
      value: COOKIE_VALUE,
      domain: 'shop.example',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    },
    {
      name: 'consent',
      value: 'yes',
      domain: '.shop.example',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: true,
      sameSite: 'Lax',
    },
  ],
  origins: [{ origin: 'https://shop.example', localStorage: [{ name: 'token', value: STORAGE_VALUE }] }],
};

const api = (method: 'get' | 'put', path: string, permission: 'read' | 'write' | 'admin' = 'write') =>
  request(f.api.app)[method](`/api/v1${path}`).set(f.org.auth(permission));

const expectNoSecret = (page: Page) => expectNoSecretShown(page, SECRETS);

let credentialId: string;
let profileId: string;
let botId: string;

it('creates, rotates and deletes credentials without ever showing a secret', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await page.getByRole('link', { name: 'Credentials' }).click();
    await page.getByRole('heading', { name: 'Credentials', level: 1 }).waitFor();
    await page.getByText('0 credentials').waitFor();
    await checkA11y('credentials (empty)');

    const form = page.getByRole('region', { name: 'New credential' });
    await form.getByLabel('Name', { exact: true }).fill('Shop login');
    await form.getByLabel('Origins').fill('HTTPS://Shop.Example\nhttps://login.shop.example:8443');
    await form.getByLabel('Username (optional)').fill('watcher@example.com');
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await form.getByLabel('TOTP secret (base32)').fill(TOTP_SECRET);
    await expect(form.getByLabel('Password', { exact: true }).getAttribute('type')).resolves.toBe('password');
    await expect(form.getByLabel('TOTP secret (base32)').getAttribute('type')).resolves.toBe('password');
    await form.getByRole('button', { name: 'Create credential' }).click();
    await page.getByRole('status').getByText('Created Shop login.').waitFor();

    const card = page.getByTestId('credentials-list').locator(':scope > li', { hasText: 'Shop login' });
    await card.getByText('password set').waitFor();
    await card.getByText('TOTP: SHA1, 6 digits, 30 s').waitFor();
    await card.getByText('watcher@example.com').waitFor();
    await card.getByText('https://shop.example, https://login.shop.example:8443').waitFor();
    credentialId = (await card.locator('code').first().textContent())!;
    expect(credentialId).toMatch(/^crd_/);
    // The secret inputs are empty again after the save.
    await expect(form.getByLabel('Password', { exact: true }).inputValue()).resolves.toBe('');
    await expect(form.getByLabel('TOTP secret (base32)').inputValue()).resolves.toBe('');
    await expectNoSecret(page);
    await checkA11y('credentials');
    await snap(page, 'credentials');

    // Rotate: a new password and a TOTP from an otpauth URI with its own settings.
    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = card.getByRole('form', { name: 'Edit Shop login' });
    await expect(edit.getByLabel('New password').inputValue()).resolves.toBe('');
    // A write key sees the origins but cannot change them (only an admin key can).
    await expect(edit.getByLabel('Origins').getAttribute('readonly')).resolves.not.toBeNull();
    await checkA11y('credential edit form');
    await edit.getByLabel('New password').fill(ROTATED_PASSWORD);
    await edit
      .getByLabel('or otpauth:// URI')
      .fill(`otpauth://totp/Shop:watcher?secret=${ROTATED_TOTP_SECRET}&algorithm=SHA256&digits=8&period=60`);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').getByText('Saved Shop login.').waitFor();
    await card.getByText('TOTP: SHA256, 8 digits, 60 s').waitFor();
    await card.getByText('password set').waitFor();
    await expect(card.getByRole('form').count()).resolves.toBe(0);
    await expectNoSecret(page);
    const rotated = (await api('get', `/credentials/${credentialId}`)).body;
    expect(rotated).toMatchObject({ hasPassword: true, totp: { algorithm: 'SHA256', digits: 8, period: 60 } });

    // A TOTP secret the API cannot use is refused beside its input; both kinds at once, before sending.
    await form.getByLabel('Name', { exact: true }).fill('Broken login');
    await form.getByLabel('Origins').fill('https://shop.example');
    await form.getByLabel('TOTP secret (base32)').fill('not-base32!');
    guard.expectError((r) => r.status() === 400 && r.url().endsWith('/credentials'));
    await form.getByRole('button', { name: 'Create credential' }).click();
    await form.getByRole('alert').waitFor();
    // The message is put beside the input it is about.
    await expect(form.locator('.field-error').allTextContents()).resolves.toEqual([expect.stringContaining('base32')]);
    await form.getByLabel('or otpauth:// URI').fill(`otpauth://totp/x?secret=${TOTP_SECRET}`);
    await form.getByRole('button', { name: 'Create credential' }).click();
    await form.getByRole('alert').getByText('Give a TOTP secret or an otpauth URI, not both.').waitFor();
    await form.getByLabel('TOTP secret (base32)').fill('');
    await form.getByLabel('or otpauth:// URI').fill('');
    await form.getByLabel('Name', { exact: true }).fill('');
    await expect(page.getByText('1 credential', { exact: true }).count()).resolves.toBe(1);

    // A second one, deleted after the two-step confirmation.
    await form.getByLabel('Name', { exact: true }).fill('Spare login');
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await form.getByRole('button', { name: 'Create credential' }).click();
    await page.getByText('2 credentials').waitFor();
    const spare = page.getByTestId('credentials-list').locator(':scope > li', { hasText: 'Spare login' });
    await spare.getByText('no TOTP').waitFor();
    await spare.getByRole('button', { name: 'Delete' }).click();
    await checkA11y('credential delete confirmation');
    await spare.getByRole('button', { name: 'Delete the credential' }).click();
    await page.getByText('1 credential', { exact: true }).waitFor();
    await page.getByRole('status').getByText('Deleted Spare login.').waitFor();
    await expectNoSecret(page);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('imports a storage state as an admin, shows its sites but no value, resets and exports it', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.admin);
    await page.getByRole('link', { name: 'Profiles' }).click();
    await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
    await checkA11y('profiles (empty)');
    await page.getByLabel('Name', { exact: true }).fill('Shop account');
    await page.getByLabel('Description (optional)').fill('Logged in as the watcher');
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.getByRole('heading', { name: 'Shop account', level: 1 }).waitFor();
    profileId = /\/console\/profiles\/(prf_\w+)/.exec(page.url())![1]!;
    await page.getByText('No cookies or storage: runs start as a fresh browser.').waitFor();
    await expect(page.getByTestId('profile-version').textContent()).resolves.toBe('empty (never saved)');

    await page.getByLabel('Import a storage state').setInputFiles({
      name: 'shop-state.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(STORAGE_STATE)),
    });
    await page.getByText('Imported shop-state.json as version 1.').waitFor();

    // A file that is not a state is refused with a message naming it, and changes nothing.
    const importInput = page.getByLabel('Import a storage state');
    await importInput.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not json') });
    await page.getByRole('alert').getByText('notes.txt is not JSON', { exact: false }).waitFor();
    guard.expectError((r) => r.status() === 400 && r.url().endsWith(`/profiles/${profileId}/state`));
    const withPath = { cookies: [], origins: [{ origin: 'https://shop.example/login', localStorage: [] }] };
    await importInput.setInputFiles({
      name: 'bad-state.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(withPath)),
    });
    await page.getByRole('alert').waitFor();
    await page.getByRole('list', { name: 'What the API refused in the file' }).getByText('origins.0.origin').waitFor();
    expect((await api('get', `/profiles/${profileId}`)).body.version).toBe(1);
    const origins = page.getByTestId('profile-origins');
    await origins.waitFor();
    const row = origins.getByRole('row', { name: /https:\/\/shop\.example/ });
    await expect(row.locator('td').allTextContents()).resolves.toEqual(['2', '1', '0']);
    await page.getByTestId('profile-versions').getByText('Version 1, imported').waitFor();
    await expectNoSecret(page);
    await checkA11y('profile with a state');
    await snap(page, 'profile');

    // The export is the state itself, handed to the browser as a file and never put on the page.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export the state' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Shop-account.storage-state.json');
    const exported = JSON.parse(readFileSync((await download.path())!, 'utf8')) as typeof STORAGE_STATE;
    expect(exported.cookies.map((cookie) => cookie.value).sort()).toEqual([COOKIE_VALUE, 'yes'].sort());
    expect(exported.origins[0]?.localStorage).toEqual([{ name: 'token', value: STORAGE_VALUE }]);
    await expectNoSecret(page);

    // Reset empties it as a new version.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByRole('button', { name: 'Reset the profile' }).click();
    await page.getByRole('status').getByText('The profile is empty.').waitFor();
    await page.getByTestId('profile-versions').getByText('Version 2, reset').waitFor();
    await page.getByText('No cookies or storage: runs start as a fresh browser.').waitFor();

    // A version a run saved links to the run, as does "last saved by".
    const ownerBot = await f.api.newBot(f.org, { name: 'profile owner' });
    const run = await createTestExecution(f.api.db, {
      botId: ownerBot,
      organizationId: f.org.id,
      completed: { extractedData: {} },
    });
    const sealed = f.api.deps.secretBox.encrypt(JSON.stringify({ cookies: [], origins: [] }));
    await saveProfileVersion(f.api.db, {
      profileId,
      stateEnc: sealed,
      origins: [],
      source: 'run',
      executionId: run.id,
    });
    await page.reload();
    const versions = page.getByTestId('profile-versions');
    await versions.getByText('Version 3, saved by a run').waitFor();
    await expect(versions.getByRole('link', { name: run.id }).getAttribute('href')).resolves.toBe(
      `/console/runs/${run.id}`,
    );
    await expect(page.getByRole('link', { name: run.id }).count()).resolves.toBe(2);

    // Rename.
    await page.getByLabel('Name', { exact: true }).fill('Shop account (EU)');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('heading', { name: 'Shop account (EU)', level: 1 }).waitFor();
    await checkA11y('profile after a reset');
    await page.getByRole('link', { name: 'Profiles' }).click();
    await page.getByTestId('profiles-list').getByRole('link', { name: 'Shop account (EU)' }).waitFor();

    // A profile nothing uses is deleted after the confirmation, back to the list.
    await page.getByLabel('Name', { exact: true }).fill('Throwaway');
    await page.getByRole('button', { name: 'Create profile' }).click();
    await page.getByRole('heading', { name: 'Throwaway', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Keep it' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete the profile' }).click();
    await page.getByRole('heading', { name: 'Profiles', level: 1 }).waitFor();
    await page.getByText('1 profile', { exact: true }).waitFor();
    await expect(page.getByRole('link', { name: 'Throwaway' }).count()).resolves.toBe(0);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('binds a bot to a profile and a fill step to a credential, and refuses to delete what is in use', async () => {
  botId = await f.api.newBot(
    f.org,
    { name: 'Shop watcher', targetUrl: `${f.site.origin}/search` },
    {
      steps: [
        { action: 'fill', selector: '#q', value: 'dune' },
        { action: 'fill', selector: '#pw', value: 'typed-in-clear' },
      ],
    },
  );
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    // Giving a bot a saved login takes an admin key (docs/sessions.md).
    await signIn(page, f.baseUrl, f.org.keys.admin);
    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    await page.getByRole('heading', { name: 'Shop watcher', level: 1 }).waitFor();
    await page.getByText('No profile: every run starts as a fresh browser.').waitFor();

    // The browser session: a profile and when to save back, sent as the manifest's session alone.
    await page.getByLabel('Profile', { exact: true }).selectOption({ label: 'Shop account (EU)' });
    await page.getByLabel('Save the state back').selectOption('always');
    await page.getByRole('button', { name: 'Save browser session' }).click();
    const summary = page.getByTestId('session-summary');
    await summary.getByText('after every run that ends', { exact: false }).waitFor();
    await expect(summary.getByRole('link', { name: 'Shop account (EU)' }).getAttribute('href')).resolves.toBe(
      `/console/profiles/${profileId}`,
    );
    const manifest = (await api('get', `/bots/${botId}/manifest`)).body;
    expect(manifest.session).toEqual({ profileId, persist: 'always' });

    // Step 2 types a password in clear: bind it to the credential's password instead.
    await page.getByRole('button', { name: 'Edit step 2' }).click();
    const bind = page.getByRole('group', { name: 'Step 2' });
    await bind.getByLabel('A credential’s field').check();
    await bind.getByLabel('Credential', { exact: true }).selectOption({ label: 'Shop login' });
    await bind.getByLabel('Field', { exact: true }).selectOption('password');
    await checkA11y('bot with a credential binding form');
    await page.getByRole('button', { name: 'Save steps' }).click();
    await page.getByRole('status').getByText('Saved 2 steps.').waitFor();
    await page.getByText('fill "#pw": fills password of credential "Shop login"').waitFor();
    await page.getByText('fill "#q" with "dune"').waitFor();
    const steps = (await api('get', `/bots/${botId}/steps`)).body.data as { value?: unknown }[];
    expect(steps[1]?.value).toEqual({ credential: credentialId, field: 'password' });
    expect(JSON.stringify(steps)).not.toContain('typed-in-clear');
    await checkA11y('bot with a profile and a credential');
    await snap(page, 'bot-session');

    // In use: neither can be deleted, and the page says why.
    await page.goto(`${f.baseUrl}/console/profiles/${profileId}`);
    await page.getByRole('heading', { name: 'Shop account (EU)', level: 1 }).waitFor();
    guard.expectError((r) => r.status() === 409 && r.url().endsWith(`/profiles/${profileId}`));
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('button', { name: 'Delete the profile' }).click();
    await page.getByRole('alert').getByText(botId, { exact: false }).waitFor();
    await checkA11y('profile in use');

    await page.getByRole('link', { name: 'Credentials' }).click();
    const card = page.getByTestId('credentials-list').locator(':scope > li', { hasText: 'Shop login' });
    guard.expectError((r) => r.status() === 409 && r.url().endsWith(`/credentials/${credentialId}`));
    await card.getByRole('button', { name: 'Delete', exact: true }).click();
    await card.getByRole('button', { name: 'Delete the credential' }).click();
    await card.getByRole('alert').getByText(botId, { exact: false }).waitFor();
    await expect(page.getByText('1 credential', { exact: true }).count()).resolves.toBe(1);
    await expectNoSecret(page);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('shows a read key the profiles, credentials and bindings, with no write control, at 360 px', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 360, height: 740 });
  const noHorizontalScroll = () =>
    page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  try {
    await signIn(page, f.baseUrl, f.org.keys.read);
    await page.getByRole('link', { name: 'Credentials' }).click();
    const card = page.getByTestId('credentials-list').locator(':scope > li', { hasText: 'Shop login' });
    await card.getByText('TOTP: SHA256, 8 digits, 60 s').waitFor();
    await expect(page.locator('main form, main button').count()).resolves.toBe(0);
    await expectNoSecret(page);
    await expect(noHorizontalScroll()).resolves.toBe(true);
    await checkA11y('credentials (read, 360 px)');

    await page.getByRole('link', { name: 'Profiles' }).click();
    await page.getByTestId('profiles-list').getByRole('link', { name: 'Shop account (EU)' }).click();
    await page.getByRole('heading', { name: 'Shop account (EU)', level: 1 }).waitFor();
    await page.getByTestId('profile-versions').getByText('Version 1, imported').waitFor();
    await page.getByText('Importing or exporting the state needs an admin key', { exact: false }).waitFor();
    await expect(page.locator('main form, main button, main input').count()).resolves.toBe(0);
    await expect(noHorizontalScroll()).resolves.toBe(true);
    await checkA11y('profile (read, 360 px)');

    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    await page.getByText('fill "#pw": fills password of credential "Shop login"').waitFor();
    await page.getByTestId('session-summary').getByRole('link', { name: 'Shop account (EU)' }).waitFor();
    await expect(page.locator('main form.form').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^(Edit|Delete) step/ }).count()).resolves.toBe(0);
    await expect(noHorizontalScroll()).resolves.toBe(true);
    await checkA11y('bot with a session (read, 360 px)');
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('shows a write key a bot with a saved login read-only, saying why, and why a restore is refused', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  const writes = recordApiWrites(page);
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    const notice = 'This bot uses a saved login (profile or credential); only an admin key can change it.';
    await page.getByTestId('bot-login-notice').getByText(notice).waitFor();
    await page.getByText('fill "#pw": fills password of credential "Shop login"').waitFor();
    await page.getByTestId('session-summary').getByRole('link', { name: 'Shop account (EU)' }).waitFor();
    // Neither the steps, the manifest nor the session can be edited, and no version restored here.
    await expect(page.getByRole('form', { name: 'Edit the steps' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Save browser session' }).count()).resolves.toBe(0);
    await expect(page.locator('form[aria-labelledby="capabilities-heading"]').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^Restore version/ }).count()).resolves.toBe(0);
    // Its settings are still a write key's, the target URL shown but not editable.
    await page.getByRole('button', { name: 'Edit settings' }).click();
    await expect(page.getByLabel('Target URL').getAttribute('readonly')).resolves.not.toBeNull();
    await checkA11y('bot with a saved login (write)');
    expect(writes).toEqual([]);

    // The version page offers the restore; the API's refusal reads as the same sentence.
    await page.goto(`${f.baseUrl}/console/bots/${botId}/versions/1`);
    guard.expectError((r) => r.status() === 403 && r.url().endsWith(`/bots/${botId}/versions/1/restore`));
    await page.getByRole('button', { name: 'Restore version 1' }).click();
    await page.getByRole('button', { name: 'Yes, restore version 1' }).click();
    await page.getByRole('alert').getByText(notice).waitFor();
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('tells a write key that importing a state needs an admin key', async () => {
  const { context, page, guard } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await page.goto(`${f.baseUrl}/console/profiles/${profileId}`);
    await page.getByText('Importing or exporting the state needs an admin key', { exact: false }).waitFor();
    await expect(page.getByLabel('Import a storage state').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Export the state' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Reset', exact: true }).waitFor();
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
