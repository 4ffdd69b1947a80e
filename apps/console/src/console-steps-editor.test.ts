import type { Page } from 'playwright-core';
import request from 'supertest';
import { recordApiWrites, openConsole, signIn, snap, startConsoleFixture, type ConsoleFixture } from './testing';

/*
 * The steps editor in Chromium against a running botfleet: each change a write key makes (add,
 * edit, move by keyboard, delete, a credential binding) saved as one new version and read back
 * through the API, the API's refusal shown at the field it names, and a read key that sees the
 * steps with no control to change them and sends no write.
 */

let f: ConsoleFixture;
beforeAll(async () => {
  f = await startConsoleFixture();
}, 120_000);
afterAll(() => f?.close());

const api = (method: 'get' | 'post', path: string, permission: 'read' | 'write' = 'write') =>
  request(f.api.app)[method](`/api/v1${path}`).set(f.org.auth(permission));

const noHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

/** Waits until focus is on the control with this aria-label (focus moves once the page has rendered). */
const focusReaches = (page: Page, label: string) =>
  page.waitForFunction((wanted) => document.activeElement?.getAttribute('aria-label') === wanted, label);

let botId: string;
let credentialId: string;

beforeAll(async () => {
  const created = await api('post', '/credentials').send({
    name: 'Shop login',
    password: 'not-shown-Pa55',
    origins: [f.site.origin],
  });
  expect(created.status).toBe(201);
  credentialId = created.body.id as string;
  botId = await f.api.newBot(
    f.org,
    { name: 'Book search <b>bold</b>', targetUrl: `${f.site.origin}/search` },
    {
      steps: [
        { action: 'goto', url: `${f.site.origin}/search` },
        { action: 'fill', selector: '#q', value: 'dune' },
        { action: 'click', selector: [['aria/Search'], '#go'] },
        { action: 'waitFor', ms: 100 },
      ],
    },
  );
}, 60_000);

it('adds, edits, moves by keyboard and deletes steps, binds a credential, and shows a refusal at its field', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 1280, height: 900 });
  try {
    // Binding a step to a credential takes an admin key (docs/sessions.md).
    await signIn(page, f.baseUrl, f.org.keys.admin);
    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    await page.getByRole('heading', { name: 'Book search <b>bold</b>', level: 1 }).waitFor();
    const editor = page.getByRole('form', { name: 'Edit the steps' });
    await editor.getByText('fill "#q" with "dune"').waitFor();
    await expect(editor.getByRole('button', { name: 'Save steps' }).isDisabled()).resolves.toBe(true);

    // Step 2 takes the password from the credential instead of typing text.
    await editor.getByRole('button', { name: 'Edit step 2' }).click();
    const step2 = editor.getByRole('group', { name: 'Step 2' });
    await step2.getByLabel('A credential’s field').check();
    await step2.getByLabel('Credential', { exact: true }).selectOption({ label: 'Shop login' });
    await step2.getByLabel('Field', { exact: true }).selectOption('password');
    await editor.getByText('fill "#q": fills password of credential "Shop login"').waitFor();

    // A new extract step, its fields from the registry; timeout is a field every step has.
    await editor.getByLabel('New step’s action').selectOption('extract');
    await editor.getByRole('button', { name: 'Add a step' }).click();
    const step5 = editor.getByRole('group', { name: 'Step 5' });
    await expect(step5.getByLabel('action').evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await step5.getByLabel('name', { exact: true }).fill('summary');
    await step5.getByLabel('selector', { exact: true }).fill('#summary');
    await step5.getByLabel('timeout').fill('5000');
    await checkA11y('steps editor with two steps open');

    // Keyboard only: the new step goes up two places, focus staying on the button that moves it.
    await editor.getByRole('button', { name: 'Move step 5 up' }).focus();
    await page.keyboard.press('Enter');
    await focusReaches(page, 'Move step 4 up');
    await page.keyboard.press('Enter');
    await focusReaches(page, 'Move step 3 up');
    await page.getByRole('status').getByText('Step 4 moved to 3. Not saved yet.').waitFor();

    // The click (now step 4) is deleted; its selector's second alternative is given a prefix the API refuses first.
    await editor.getByRole('button', { name: 'Edit step 4' }).click();
    const step4 = editor.getByRole('group', { name: 'Step 4' });
    await step4.getByLabel('Alternative 2', { exact: true }).fill('nope/go');
    guard.expectError((r) => r.status() === 400 && r.url().endsWith(`/bots/${botId}/steps`));
    await editor.getByRole('button', { name: 'Save steps' }).click();
    // The message sits under that alternative's input, which it describes.
    const message = step4.locator('.field-error', { hasText: 'unknown selector prefix' });
    await message.waitFor();
    const refused = step4.getByLabel('Alternative 2', { exact: true });
    await expect(refused.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(refused.getAttribute('aria-describedby')).resolves.toBe(await message.getAttribute('id'));
    await expect(step4.locator('.field-error').count()).resolves.toBe(1);
    await checkA11y('steps editor with a refused field');
    await snap(page, 'steps-editor', page.locator('section[aria-labelledby="steps-heading"]'));
    await editor.getByRole('button', { name: 'Delete step 4' }).click();
    await focusReaches(page, 'Edit step 4');

    await editor.getByRole('button', { name: 'Save steps' }).click();
    await page.getByRole('status').getByText('Saved 4 steps.').waitFor();
    // The bot page hears of the save: its history shows the new version.
    await page.getByTestId('bot-versions').getByRole('link', { name: 'Version 2' }).waitFor();
    const saved = (await api('get', `/bots/${botId}/steps`)).body.data as unknown[];
    expect(saved).toEqual([
      { index: 0, action: 'goto', url: `${f.site.origin}/search` },
      { index: 1, action: 'fill', selector: '#q', value: { credential: credentialId, field: 'password' } },
      { index: 2, action: 'extract', name: 'summary', selector: '#summary', timeout: 5000 },
      { index: 3, action: 'waitFor', ms: 100 },
    ]);
    expect(guard.problems).toEqual([]);

    // At 360 px the editor fits, a step open.
    await page.setViewportSize({ width: 360, height: 740 });
    await editor.getByRole('button', { name: 'Edit step 3' }).click();
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    await checkA11y('steps editor at 360 px');
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 180_000);

it('shows a read key the steps with no control to change them, and sends no write, at 360 px', async () => {
  const { context, page, guard, checkA11y } = await openConsole(f.browser, { width: 360, height: 740 });
  const writes = recordApiWrites(page);
  try {
    await signIn(page, f.baseUrl, f.org.keys.read);
    await page.goto(`${f.baseUrl}/console/bots/${botId}`);
    const section = page.getByRole('region', { name: 'Steps' });
    await section.getByText('fill "#q": fills password of credential "Shop login"').waitFor();
    await section.getByText('extract summary: the first "#summary"').waitFor();
    await expect(section.locator('form, button, input, select, textarea').count()).resolves.toBe(0);
    await expect(noHorizontalScroll(page)).resolves.toBe(true);
    await checkA11y('steps (read, 360 px)');
    expect(writes).toEqual([]);
    expect(guard.problems).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
