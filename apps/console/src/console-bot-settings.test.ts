import { waitUntil } from '@botfleet/testkit';
import type { Locator, Page } from 'playwright-core';
import request from 'supertest';
import {
  bookSearchRecording,
  openConsole,
  recordApiWrites,
  signIn,
  snap,
  startConsoleFixture,
  type ConsoleFixture,
} from './testing';

/*
 * A bot's own settings in Chromium against a running botfleet: creating one from scratch or from
 * a recording with its kind, editing its name, target, tags, description and retries, pausing,
 * resuming and deleting it. Every save is read back through the API; the API's refusals show
 * beside the field they name; a read key gets no control and sends no write.
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
}, 120_000);
afterAll(() => f?.close());

const HTML_NAME = '<img src=x onerror="window.__injected=1"><em id="injected">Price</em> watch';
const TOO_LONG_TAG = 'x'.repeat(65);

const api = (method: 'get' | 'patch' | 'put', path: string) =>
  request(f.api.app)[method](`/api/v1${path}`).set(f.org.auth('write'));

/** Whether the markup of a name was put on the page as elements rather than as its text. */
const injected = (page: Page) =>
  page.evaluate(
    () => document.getElementById('injected') !== null || (window as { __injected?: unknown }).__injected !== undefined,
  );

const noHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

const isFocused = (target: Locator) => target.evaluate((element) => element === document.activeElement);

/** Presses Tab until `target` has the focus: it is reachable by keyboard, in the page's order. */
async function tabTo(page: Page, target: Locator, what: string): Promise<void> {
  for (let presses = 0; presses < 80; presses++) {
    if (await isFocused(target)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${what}`);
}

const botIdOf = (page: Page) => /\/console\/bots\/(bot_\w+)$/.exec(page.url())?.[1] ?? '';

it('creates a bot from scratch, shows refused fields at their field, edits, pauses, resumes and deletes it', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    await page.getByRole('button', { name: 'Create a bot from scratch' }).click();
    const create = page.getByRole('form', { name: 'New bot' });
    await expect(isFocused(create.getByLabel('Name'))).resolves.toBe(true);
    await create.getByLabel('Name').fill('Price watch');
    await create.getByLabel('Target URL').fill('https://shop.example/item/42');
    await create.getByLabel('Tags').fill('prices, nightly');
    await create.getByLabel('Description').fill('Watches the price of item 42');
    await create.getByLabel('Kind').selectOption('action');
    await checkA11y('new bot form');
    await snap(page, 'new-bot', page.locator('section[aria-labelledby="new-bot-heading"]'));

    // The API refuses the URL and the long tag: each message under its own input, which it describes.
    await create.getByLabel('Name').fill(HTML_NAME);
    await create.getByLabel('Target URL').fill('ftp://files.example/prices');
    await create.getByLabel('Tags').fill(`prices, ${TOO_LONG_TAG}`);
    guard.expectError((r) => r.status() === 400 && r.request().method() === 'POST' && r.url().endsWith('/bots'));
    await create.getByRole('button', { name: 'Create bot' }).click();
    await create.getByRole('alert').waitFor();
    const urlInput = create.getByLabel('Target URL');
    await expect(create.locator('#new-bot-target-url-error').textContent()).resolves.toContain('http(s)');
    await expect(urlInput.getAttribute('aria-describedby')).resolves.toContain('new-bot-target-url-error');
    await expect(urlInput.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(create.locator('#new-bot-tags-error').textContent()).resolves.toContain(`“${TOO_LONG_TAG}”`);
    await expect(create.locator('.field-error').count()).resolves.toBe(2);
    await checkA11y('new bot form with refused fields');

    await urlInput.fill(`${f.site.origin}/search`);
    await create.getByLabel('Tags').fill('prices, nightly, prices');
    await create.getByRole('button', { name: 'Create bot' }).click();
    // HTML in the name stays text, on the heading as everywhere.
    await page.getByRole('heading', { name: HTML_NAME, level: 1 }).waitFor();
    const botId = botIdOf(page);
    expect((await api('get', `/bots/${botId}`)).body).toMatchObject({
      name: HTML_NAME,
      targetUrl: `${f.site.origin}/search`,
      kind: 'action',
      status: 'active',
      tags: ['prices', 'nightly'],
      description: 'Watches the price of item 42',
      retry: { attempts: 0, delaySeconds: 0 },
    });
    await expect(injected(page)).resolves.toBe(false);

    // The settings form starts from the bot as read, and the API's refusal shows at its field.
    await page.getByRole('button', { name: 'Edit settings' }).click();
    const settings = page.getByRole('form', { name: 'Bot settings' });
    await expect(isFocused(settings.getByLabel('Name'))).resolves.toBe(true);
    await expect(settings.getByLabel('Name').inputValue()).resolves.toBe(HTML_NAME);
    await expect(settings.getByLabel('Tags').inputValue()).resolves.toBe('prices, nightly');
    await settings.getByLabel('Name').fill('Price watch (EU)');
    await settings.getByLabel('Target URL').fill('javascript:alert(1)');
    await settings.getByLabel('Tags').fill('prices, eu');
    await settings.getByLabel('Description').fill('');
    await settings.getByLabel('Tries after the first').fill('7');
    await settings.getByLabel('Pause before each retry (seconds)').fill('30');
    guard.expectError((r) => r.status() === 400 && r.url().endsWith(`/bots/${botId}`));
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await settings.getByRole('alert').waitFor();
    await expect(settings.locator('#bot-target-url-error').textContent()).resolves.toContain('http(s)');
    await expect(settings.locator('#bot-retry-attempts-error').count()).resolves.toBe(1);
    await expect(settings.locator('.field-error').count()).resolves.toBe(2);
    expect((await api('get', `/bots/${botId}`)).body.name).toBe(HTML_NAME);

    await settings.getByLabel('Target URL').fill(`${f.site.origin}/results`);
    await settings.getByLabel('Tries after the first').fill('2');
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    await page.getByRole('heading', { name: 'Price watch (EU)', level: 1 }).waitFor();
    await expect(settings.count()).resolves.toBe(0);
    await expect(isFocused(page.getByRole('button', { name: 'Edit settings' }))).resolves.toBe(true);
    expect((await api('get', `/bots/${botId}`)).body).toMatchObject({
      name: 'Price watch (EU)',
      targetUrl: `${f.site.origin}/results`,
      kind: 'action',
      tags: ['prices', 'eu'],
      description: null,
      retry: { attempts: 2, delaySeconds: 30 },
    });
    // The page shows what the API answered.
    const facts = page.locator('main > dl.facts');
    await facts.getByText(`${f.site.origin}/results`).waitFor();
    await facts.getByText('2, 30 s apart').waitFor();
    await expect(facts.locator('.tag').allTextContents()).resolves.toEqual(['prices', 'eu']);

    // Opened again, the form holds the saved values; a description is set back.
    await page.getByRole('button', { name: 'Edit settings' }).click();
    await expect(settings.getByLabel('Target URL').inputValue()).resolves.toBe(`${f.site.origin}/results`);
    await expect(settings.getByLabel('Tries after the first').inputValue()).resolves.toBe('2');
    await expect(settings.getByLabel('Pause before each retry (seconds)').inputValue()).resolves.toBe('30');
    await expect(settings.getByLabel('Description').inputValue()).resolves.toBe('');
    await settings.getByLabel('Description').fill('Watches EU prices <script>window.__injected=2</script>');
    await checkA11y('bot settings form');
    await snap(page, 'bot-settings', page.locator('section[aria-labelledby="bot-settings-heading"]'));
    await settings.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Watches EU prices <script>window.__injected=2</script>').waitFor();
    expect((await api('get', `/bots/${botId}`)).body.description).toBe(
      'Watches EU prices <script>window.__injected=2</script>',
    );
    await expect(injected(page)).resolves.toBe(false);

    // Pause and resume: the status is the API's, read back, and so are the schedule's next runs.
    expect((await api('put', `/bots/${botId}/schedule`).send({ interval: 3600, active: true })).status).toBe(200);
    await page.reload();
    await page.getByTestId('next-runs').waitFor();
    await page.getByRole('button', { name: 'Pause bot' }).click();
    await page.getByRole('status').getByText('Paused.').waitFor();
    await page.getByTestId('next-runs').waitFor({ state: 'detached' });
    await page.getByText('Paused: the schedule does not fire', { exact: false }).waitFor();
    await page.getByRole('heading', { level: 1 }).getByText('paused').waitFor();
    expect((await api('get', `/bots/${botId}`)).body.status).toBe('paused');
    await checkA11y('paused bot');
    await page.getByRole('button', { name: 'Resume bot' }).click();
    await page.getByRole('status').getByText('Resumed.').waitFor();
    await page.getByTestId('next-runs').waitFor();
    await page.getByRole('button', { name: 'Pause bot' }).waitFor();
    expect((await api('get', `/bots/${botId}`)).body.status).toBe('active');

    // Delete asks first, then goes back to the list.
    await page.getByRole('button', { name: 'Delete bot' }).click();
    await page.getByRole('button', { name: 'Keep it' }).click();
    await page.getByRole('button', { name: 'Delete bot' }).click();
    await page.getByRole('button', { name: 'Delete the bot' }).click();
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await page.getByTestId('bots-list').waitFor({ state: 'attached' });
    expect((await api('get', `/bots/${botId}`)).status).toBe(404);
    await expect(page.getByRole('link', { name: 'Price watch (EU)' }).count()).resolves.toBe(0);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 180_000);

it('creates a bot of the chosen kind from a recording', async () => {
  const { context, page, guard } = await openConsole(f.browser, { width: 1280, height: 800 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    const drop = page.locator('.drop-zone');
    await drop.getByLabel('Kind').selectOption('action');
    await drop.getByLabel('Create a bot from a recording').setInputFiles({
      name: 'book-search.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(bookSearchRecording(f.site.origin))),
    });
    await page.getByRole('heading', { name: 'Book search', level: 1 }).waitFor();
    expect((await api('get', `/bots/${botIdOf(page)}`)).body).toMatchObject({
      name: 'Book search',
      kind: 'action',
      targetUrl: `${f.site.origin}/search`,
    });
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('creates and edits a bot by keyboard alone at 360 px', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 360, height: 740 });
  try {
    await signIn(page, f.baseUrl, f.org.keys.write);
    const open = page.getByRole('button', { name: 'Create a bot from scratch' });
    await tabTo(page, open, 'the new bot button');
    await page.keyboard.press('Enter');
    const create = page.getByRole('form', { name: 'New bot' });
    await waitUntil(() => isFocused(create.getByLabel('Name')), { timeoutMs: 10_000, message: 'the name focused' });
    await page.keyboard.type('Keyboard bot');
    await page.keyboard.press('Tab');
    await page.keyboard.type(`${f.site.origin}/search`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('typed');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Made without a mouse');
    await page.keyboard.press('Tab');
    await expect(isFocused(create.getByLabel('Kind'))).resolves.toBe(true);
    await page.keyboard.press('ArrowDown');
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    await checkA11y('new bot form (360 px)');
    await tabTo(page, create.getByRole('button', { name: 'Create bot' }), 'Create bot');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard bot', level: 1 }).waitFor();
    const botId = botIdOf(page);
    expect((await api('get', `/bots/${botId}`)).body).toMatchObject({
      name: 'Keyboard bot',
      targetUrl: `${f.site.origin}/search`,
      kind: 'action',
      tags: ['typed'],
      description: 'Made without a mouse',
    });

    await tabTo(page, page.getByRole('button', { name: 'Edit settings' }), 'Edit settings');
    await page.keyboard.press('Enter');
    const settings = page.getByRole('form', { name: 'Bot settings' });
    await waitUntil(() => isFocused(settings.getByLabel('Name')), { timeoutMs: 10_000, message: 'the name focused' });
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    await checkA11y('bot settings form (360 px)');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Keyboard bot, renamed');
    // Enter in a one-line input submits its form.
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Keyboard bot, renamed', level: 1 }).waitFor();
    expect((await api('get', `/bots/${botId}`)).body.name).toBe('Keyboard bot, renamed');
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);

it('shows a read key the settings with no control, sends no write, at 360 px', async () => {
  const botId = await f.api.newBot(f.org, { name: HTML_NAME, tags: ['prices'], description: 'Read only' });
  expect((await api('patch', `/bots/${botId}`).send({ status: 'paused' })).status).toBe(200);
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 360, height: 740 });
  const writes = recordApiWrites(page);
  try {
    await signIn(page, f.baseUrl, f.org.keys.read);
    await page.getByTestId('bots-list').getByRole('link', { name: HTML_NAME }).waitFor();
    await expect(page.getByRole('button', { name: 'Create a bot from scratch' }).count()).resolves.toBe(0);
    await expect(page.locator('.drop-zone').count()).resolves.toBe(0);
    await expect(noHorizontalScroll(page)).resolves.toBe(true);

    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    await page.getByRole('heading', { name: HTML_NAME, level: 1 }).waitFor();
    await page.getByText('Paused: the schedule does not fire', { exact: false }).waitFor();
    await page.getByText('Read only').waitFor();
    for (const control of ['Edit settings', 'Pause bot', 'Resume bot', 'Delete bot']) {
      await expect(page.getByRole('button', { name: control }).count()).resolves.toBe(0);
    }
    await expect(page.getByRole('form', { name: 'Bot settings' }).count()).resolves.toBe(0);
    await expect(injected(page)).resolves.toBe(false);
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    await checkA11y('paused bot (read, 360 px)');
    expect(writes).toEqual([]);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 120_000);
