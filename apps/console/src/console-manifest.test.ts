import { startReceiver, waitUntil, type ReceivedRequest, type TestReceiver } from '@botfleet/testkit';
import { createHmac } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import request from 'supertest';
import {
  expectNoSecretShown,
  recordApiWrites,
  openConsole,
  signIn,
  snap,
  startConsoleFixture,
  type ConsoleFixture,
} from './testing';

/*
 * The manifest editors of a bot's page in Chromium against a running botfleet: each section is
 * saved alone and read back through the API, the API's complaints appear at the field they name,
 * webhook secrets go in and never come back out, and a read key gets the manifest to read only.
 */

let f: ConsoleFixture;
/** A webhook receiver on loopback (the test API allows private networks) answering `answer`. */
let receiver: TestReceiver;
let answer = 202;
beforeAll(async () => {
  f = await startConsoleFixture();
  receiver = await startReceiver((_received, res) => {
    res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'thanks' : 'receiver says no');
  });
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await f?.close();
});

const SECRET = 'whsec-console-first-Secret-1';
const NEW_SECRET = 'whsec-console-second-Secret-2';
const PASSWORD = 'jwt-console-Pa55word';
const SECRETS = [SECRET, NEW_SECRET, PASSWORD];

const api = (method: 'get' | 'put', path: string, permission: 'read' | 'write' = 'write') =>
  request(f.api.app)[method](`/api/v1${path}`).set(f.org.auth(permission));
const manifestOf = async (botId: string) => (await api('get', `/bots/${botId}/manifest`)).body;
const versionOf = async (botId: string): Promise<number> => (await api('get', `/bots/${botId}`)).body.version;

const expectNoSecret = (page: Page) => expectNoSecretShown(page, SECRETS);

/** What describes the field to assistive technology, once it is marked invalid: its error. */
async function errorAt(field: Locator): Promise<string> {
  await waitUntil(async () => (await field.getAttribute('aria-invalid')) === 'true', {
    timeoutMs: 15_000,
    message: 'the field to be marked invalid',
  });
  return field.evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id))
      .filter((described) => described?.classList.contains('field-error'))
      .map((described) => described?.textContent ?? '')
      .join(' | '),
  );
}

/** The Standard Webhooks signature of a delivery, as keyed with this secret's UTF-8 bytes. */
function signedWith(received: ReceivedRequest, secret: string): boolean {
  const id = String(received.headers['webhook-id']);
  const timestamp = String(received.headers['webhook-timestamp']);
  const expected = createHmac('sha256', secret).update(`${id}.${timestamp}.${received.body}`).digest('base64');
  return String(received.headers['webhook-signature']) === `v1,${expected}`;
}

/** Waits for the focus to be on a control, named "<its group's legend>: <a button's text, or its id>". */
const waitForFocus = (page: Page, expected: string) =>
  waitUntil(
    () =>
      page.evaluate((want) => {
        const active = document.activeElement;
        const legend = active?.closest('fieldset')?.querySelector('legend')?.textContent ?? '';
        const name = active instanceof HTMLButtonElement ? active.textContent : active?.id;
        return `${legend}: ${name}` === want;
      }, expected),
    { timeoutMs: 10_000, message: `the focus on ${expected}` },
  );

const noHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

async function openBot(page: Page, botId: string, name: string): Promise<void> {
  await page.goto(`${f.baseUrl}/console/bots/${botId}`);
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'Capabilities', level: 3 }).waitFor();
}

it('edits every capability, reads them back, and shows what the API refuses at its field', async () => {
  const botId = await f.api.newBot(f.org, { name: 'Capable bot' });
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  const writes = recordApiWrites(page);
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await openBot(page, botId, 'Capable bot');
    const form = page.getByRole('form', { name: 'Capabilities' });
    await checkA11y('bot manifest editors');
    const before = await versionOf(botId);

    for (const label of [
      'Route the browser through the proxy pool',
      'Block ads and trackers',
      'Keep downloaded files as artifacts',
      "Keep a HAR of the run's requests",
      'Keep a screenshot after every step',
    ]) {
      await form.getByLabel(label).check();
    }
    await form.getByLabel('Keep a Playwright trace').selectOption('always');
    await form.getByLabel('Locale').fill('fr-FR');
    await form.getByLabel('Time zone').fill('Europe/Paris');
    await form.getByLabel('User agent').fill('BotfleetConsoleTest/1.0 <b>not bold</b>');
    await form.getByLabel('Latitude').fill('48.8566');
    await form.getByLabel('Longitude').fill('2.3522');
    await form.getByLabel('Width').fill('1366');
    await form.getByLabel('Height').fill('768');
    await form.getByLabel('Timeout (seconds)').fill('120');
    await form.getByRole('button', { name: 'Save capabilities' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const capabilities = {
      proxy: true,
      adBlocking: true,
      downloads: true,
      har: true,
      stepScreenshots: true,
      trace: 'always',
      locale: 'fr-FR',
      timezone: 'Europe/Paris',
      userAgent: 'BotfleetConsoleTest/1.0 <b>not bold</b>',
      geolocation: { latitude: 48.8566, longitude: 2.3522 },
      resolution: { width: 1366, height: 768 },
      timeout: 120,
    };
    const saved = await manifestOf(botId);
    expect(saved.capabilities).toEqual(capabilities);
    // Only the section edited was sent: the others are as they were.
    expect({ webhook: saved.webhook, parameters: saved.parameters }).toEqual({ webhook: null, parameters: [] });
    expect(writes).toEqual([`PUT /api/v1/bots/${botId}/manifest`]);
    // A manifest change is a new version of the bot.
    await expect(versionOf(botId)).resolves.toBe(before + 1);

    // Read back into the form after a reload.
    await openBot(page, botId, 'Capable bot');
    await expect(form.getByLabel('User agent').inputValue()).resolves.toBe(capabilities.userAgent);
    await expect(form.getByLabel('Latitude').inputValue()).resolves.toBe('48.8566');
    await expect(form.getByLabel('Keep a Playwright trace').inputValue()).resolves.toBe('always');
    await expect(form.getByLabel('Block ads and trackers').isChecked()).resolves.toBe(true);
    await expect(page.locator('b').count()).resolves.toBe(0);

    // The API refuses a window too narrow and an unknown zone: each message at its own field.
    guard.expectError((r) => r.status() === 400 && r.url().endsWith(`/bots/${botId}/manifest`));
    await form.getByLabel('Width').fill('50');
    await form.getByLabel('Time zone').fill('Mars/Olympus');
    await form.getByRole('button', { name: 'Save capabilities' }).click();
    await form.getByRole('alert').waitFor();
    await expect(errorAt(form.getByLabel('Width'))).resolves.toMatch(/100/);
    await expect(errorAt(form.getByLabel('Time zone'))).resolves.toContain('IANA time zone');
    await expect(form.locator('.field-error').count()).resolves.toBe(2);
    await checkA11y('capabilities refused');

    // Half a pair is refused before sending: nothing goes to the API.
    const sent = writes.length;
    await form.getByLabel('Width').fill('1024');
    await form.getByLabel('Time zone').fill('UTC');
    await form.getByLabel('Latitude').fill('');
    await form.getByRole('button', { name: 'Save capabilities' }).click();
    await expect(errorAt(form.getByLabel('Latitude'))).resolves.toBe('Give the latitude too, or clear both');
    expect(writes.length).toBe(sent);
    expect((await manifestOf(botId)).capabilities).toEqual(capabilities);

    // Cleared fields leave the manifest: back to the defaults.
    await form.getByLabel('Longitude').fill('');
    await form.getByLabel('Locale').fill('');
    await form.getByLabel('Keep a Playwright trace').selectOption('onFailure');
    await form.getByLabel('Route the browser through the proxy pool').uncheck();
    await form.getByRole('button', { name: 'Save capabilities' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const { proxy: _proxy, locale: _locale, geolocation: _geolocation, trace: _trace, ...kept } = capabilities;
    expect((await manifestOf(botId)).capabilities).toEqual({
      ...kept,
      timezone: 'UTC',
      resolution: { width: 1024, height: 768 },
    });
    await snap(page, 'manifest-capabilities', page.locator('form[aria-labelledby="capabilities-heading"]'));
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 180_000);

it('saves a webhook with write-only secrets: set, replace, clear, test-send and remove', async () => {
  const botId = await f.api.newBot(f.org, { name: 'Hooked bot' });
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await openBot(page, botId, 'Hooked bot');
    const form = page.getByRole('form', { name: 'Webhook' });
    await page.getByText('No webhook: results are read through the API.', { exact: false }).waitFor();
    await expect(page.getByRole('button', { name: 'Send a test event' }).count()).resolves.toBe(0);

    const url = `${receiver.url}/hook?token=query-value`;
    await form.getByLabel('URL').fill(url);
    await form.getByLabel('a run fails').check();
    await form.getByLabel("a run's data differs from the run before").check();
    await form.getByLabel('Data path (optional)').fill('items.0');
    await form.getByLabel('Wrap completed runs in an event envelope too', { exact: false }).check();
    await form.getByLabel('Send a completed run only when its data changed').check();
    await form.getByLabel('Authentication').selectOption('hmac');
    await form.getByLabel('Secret').fill(SECRET);
    await expect(form.getByLabel('Secret').getAttribute('type')).resolves.toBe('password');
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect((await manifestOf(botId)).webhook).toEqual({
      url,
      auth: 'hmac',
      secret: '********',
      events: ['execution.completed', 'execution.failed', 'data.changed'],
      dataPath: 'items.0',
      envelope: true,
      onlyOnChange: true,
    });
    // The secret is stored, never shown: the form says "set" and offers replace and clear.
    await page.getByTestId('manifest-webhook-secret-state').getByText('Set.', { exact: false }).waitFor();
    await expectNoSecret(page);
    await checkA11y('webhook with a stored secret');

    // A test event reaches the receiver signed with the secret; the page shows its answer.
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const result = page.getByTestId('webhook-test-result');
    await result.getByText(/^Delivered: HTTP 202 after \d+ ms\.$/).waitFor();
    const first = receiver.requests.at(-1)!;
    expect(first.headers['x-botfleet-event']).toBe('webhook.test');
    expect(signedWith(first, SECRET)).toBe(true);

    // Replace: a new secret, typed and saved, then gone from the page; the next test is signed with it.
    await form.getByRole('button', { name: 'Replace secret' }).click();
    await waitForFocus(page, ': manifest-webhook-secret');
    await form.getByLabel('New secret').fill(NEW_SECRET);
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    await page.getByTestId('manifest-webhook-secret-state').waitFor();
    await expectNoSecret(page);
    answer = 500;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await result.getByText(/^Not delivered: HTTP 500 after \d+ ms/).waitFor();
    expect(signedWith(receiver.requests.at(-1)!, NEW_SECRET)).toBe(true);
    answer = 202;

    // Leaving the secret untouched keeps it while other fields change.
    await form.getByLabel('Data path (optional)').fill('');
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await result.getByText(/^Delivered: HTTP 202/).waitFor();
    expect(signedWith(receiver.requests.at(-1)!, NEW_SECRET)).toBe(true);
    expect((await manifestOf(botId)).webhook).toMatchObject({ secret: '********', auth: 'hmac' });
    expect((await manifestOf(botId)).webhook.dataPath).toBeUndefined();

    // A URL the API refuses, and no event at all: each message at its field, nothing stored.
    guard.expectError((r) => r.status() === 400 && r.url().endsWith(`/bots/${botId}/manifest`));
    await form.getByLabel('URL').fill('ftp://files.example/drop');
    for (const label of [
      'a run completes (the body is its data)',
      'a run fails',
      "a run's data differs from the run before",
    ])
      await form.getByLabel(label).uncheck();
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await form.getByRole('alert').waitFor();
    await expect(errorAt(form.getByLabel('URL'))).resolves.toMatch(/http/);
    await expect(errorAt(form.getByRole('group', { name: 'Send when' }))).resolves.not.toBe('');
    await checkA11y('webhook refused');
    expect((await manifestOf(botId)).webhook.url).toBe(url);

    // Clear: the secret goes, and with it the signing.
    await openBot(page, botId, 'Hooked bot');
    await form.getByRole('button', { name: 'Clear secret' }).click();
    await waitForFocus(page, ': manifest-webhook-auth');
    await form.getByText('the stored secret is removed when you save', { exact: false }).waitFor();
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    const cleared = (await manifestOf(botId)).webhook;
    expect(cleared).toMatchObject({ url, auth: 'none' });
    expect(cleared.secret).toBeUndefined();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await result.getByText(/^Delivered/).waitFor();
    expect(receiver.requests.at(-1)!.headers['webhook-signature']).toBeUndefined();

    // A JWT login: its URL, username and write-only password.
    await form.getByLabel('Authentication').selectOption('jwt');
    await form.getByLabel('Login URL').fill(`${receiver.url}/login`);
    await form.getByLabel('Username').fill('hook-user');
    await form.getByLabel('Password').fill(PASSWORD);
    await checkA11y('webhook with a JWT login');
    await form.getByRole('button', { name: 'Save webhook' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect((await manifestOf(botId)).webhook).toMatchObject({
      auth: 'jwt',
      loginUrl: `${receiver.url}/login`,
      username: 'hook-user',
      password: '********',
    });
    await page.getByTestId('manifest-webhook-password-state').waitFor();
    await expectNoSecret(page);
    await snap(page, 'manifest-webhook', page.locator('form[aria-labelledby="webhook-heading"]'));

    // Removed after the confirmation: no webhook, and nothing to test.
    await form.getByRole('button', { name: 'Remove webhook' }).click();
    await form.getByRole('button', { name: 'Remove the webhook' }).click();
    await page.getByText('No webhook: results are read through the API.', { exact: false }).waitFor();
    expect((await manifestOf(botId)).webhook).toBeNull();
    await expect(page.getByRole('button', { name: 'Send a test event' }).count()).resolves.toBe(0);
    await expectNoSecret(page);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 180_000);

it('adds, edits, reorders and deletes parameters by keyboard, and the run forms follow', async () => {
  const botId = await f.api.newBot(f.org, { name: 'Action bot', kind: 'action' });
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  const form = page.getByRole('form', { name: 'Parameters' });
  const row = (n: number) => form.getByRole('group', { name: `Parameter ${n}`, exact: true });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await openBot(page, botId, 'Action bot');
    await form.getByText('No parameters: runs take none.').waitFor();
    const before = await versionOf(botId);

    // Added by keyboard: the new row's name takes the focus.
    await form.getByRole('button', { name: 'Add a parameter' }).focus();
    await page.keyboard.press('Enter');
    await waitForFocus(page, 'Parameter 1: manifest-parameters-0-name');
    await page.keyboard.type('query');
    await row(1).getByLabel('Required: a run without it is refused').check();
    await row(1).getByLabel('Description (optional)').fill('What to search for');
    await form.getByRole('button', { name: 'Add a parameter' }).click();
    await row(2).getByLabel('Name').fill('limit');
    await row(2).getByLabel('Type').selectOption('integer');
    await form.getByRole('button', { name: 'Add a parameter' }).click();
    await row(3).getByLabel('Name').fill('debug');
    await row(3).getByLabel('Type').selectOption('boolean');
    await checkA11y('parameters editor');
    await form.getByRole('button', { name: 'Save parameters' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect((await manifestOf(botId)).parameters).toEqual([
      { name: 'query', type: 'string', required: true, description: 'What to search for' },
      { name: 'limit', type: 'integer', required: false },
      { name: 'debug', type: 'boolean', required: false },
    ]);
    await expect(versionOf(botId)).resolves.toBe(before + 1);
    // The run and schedule forms are built from the new parameters.
    const run = page.getByRole('region', { name: 'Run now' });
    await run.getByLabel('query', { exact: false }).waitFor();
    await run.getByLabel('debug').waitFor();

    // Reorder by keyboard: the focus stays on the moved row's button.
    await row(3).getByRole('button', { name: 'Move up' }).focus();
    await page.keyboard.press('Enter');
    await waitForFocus(page, 'Parameter 2: Move up');
    await page.keyboard.press('Enter');
    // At the top its "Move up" is disabled: the focus is on its "Move down".
    await waitForFocus(page, 'Parameter 1: Move down');
    await expect(row(1).getByLabel('Name').inputValue()).resolves.toBe('debug');
    await page.keyboard.press('Enter');
    await expect(row(2).getByLabel('Name').inputValue()).resolves.toBe('debug');
    // Rename, retype, delete.
    await row(2).getByLabel('Name').fill('verbose');
    await row(3).getByLabel('Type').selectOption('number');
    await row(3).getByLabel('Name').fill('max_price');
    await row(1).getByRole('button', { name: 'Delete' }).click();
    await waitForFocus(page, 'Parameter 1: Delete');
    await form.getByRole('button', { name: 'Save parameters' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect((await manifestOf(botId)).parameters).toEqual([
      { name: 'verbose', type: 'boolean', required: false },
      { name: 'max_price', type: 'number', required: false },
    ]);
    await run.getByLabel('verbose').waitFor();
    await expect(run.getByLabel('query', { exact: false }).count()).resolves.toBe(0);
    const schedule = page.getByRole('region', { name: 'Schedule' });
    await schedule.getByLabel('max_price', { exact: false }).waitFor();

    // A duplicate name and a bad one are refused at their rows; nothing is stored.
    guard.expectError((r) => r.status() === 400 && r.url().endsWith(`/bots/${botId}/manifest`));
    await form.getByRole('button', { name: 'Add a parameter' }).click();
    await row(3).getByLabel('Name').fill('verbose');
    await form.getByRole('button', { name: 'Add a parameter' }).click();
    await row(4).getByLabel('Name').fill('2fast');
    await form.getByRole('button', { name: 'Save parameters' }).click();
    await form.getByRole('alert').waitFor();
    await expect(errorAt(row(3).getByLabel('Name'))).resolves.toBe("duplicate parameter name 'verbose'");
    await expect(errorAt(row(4).getByLabel('Name'))).resolves.not.toBe('');
    await expect(row(1).getByLabel('Name').getAttribute('aria-invalid')).resolves.toBeNull();
    await checkA11y('parameters refused');
    await snap(page, 'manifest-parameters', page.locator('form[aria-labelledby="parameters-heading"]'));
    expect((await manifestOf(botId)).parameters).toHaveLength(2);
    // Deleting a row moves the others: the messages by position no longer apply and go.
    await row(4).getByRole('button', { name: 'Delete' }).click();
    await expect(form.locator('.field-error').count()).resolves.toBe(0);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 180_000);

it('fits the editors on 360 px, and shows a read key the manifest with no control and no write', async () => {
  const botId = await f.api.newBot(
    f.org,
    { name: 'Shared bot' },
    {
      manifest: {
        capabilities: { locale: 'en-GB', resolution: { width: 1280, height: 720 }, trace: 'off' },
        webhook: {
          url: `${receiver.url}/hook?token=hidden-from-readers`,
          auth: 'hmac',
          secret: SECRET,
          events: ['execution.completed', 'execution.failed'],
        },
        parameters: [{ name: 'query', type: 'string', required: true, description: 'What to search for' }],
      },
    },
  );
  const narrow = { width: 360, height: 740 };
  const asWriter = await openConsole(f.browser, narrow);
  try {
    const { page, guard, checkA11y } = asWriter;
    await signIn(page, f.baseUrl, f.org.keys.write);
    await openBot(page, botId, 'Shared bot');
    await page.getByTestId('manifest-webhook-secret-state').waitFor();
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    await checkA11y('manifest editors (write, 360 px)');
    await expectNoSecret(page);
    expect(guard.problems).toEqual([]);
  } finally {
    await asWriter.context.close();
  }

  const asReader = await openConsole(f.browser, narrow);
  try {
    const { page, guard, checkA11y } = asReader;
    const writes = recordApiWrites(page);
    await signIn(page, f.baseUrl, f.org.keys.read);
    await openBot(page, botId, 'Shared bot');
    const manifest = page.getByRole('region', { name: 'Manifest' });
    await manifest.getByText('en-GB').waitFor();
    await manifest.getByText('•••••••• (set)').waitFor();
    await manifest.getByText('What to search for', { exact: false }).waitFor();
    await expect(manifest.locator('form, button, input, select, textarea').count()).resolves.toBe(0);
    await expect(page.getByText('hidden-from-readers').count()).resolves.toBe(0);
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    await checkA11y('manifest (read, 360 px)');
    await expectNoSecret(page);
    expect(writes).toEqual([]);
    expect(guard.problems).toEqual([]);
  } finally {
    await asReader.context.close();
  }
}, 120_000);
