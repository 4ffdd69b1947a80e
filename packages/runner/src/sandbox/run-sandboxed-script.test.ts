import { createMemorySession, SHOP_PAGE, useBrowserFixture } from '../testing';
import { runSandboxedScript } from './run-sandboxed-script';
import { ScriptError } from './script-error';

const fixture = useBrowserFixture({ routes: { '/shop': SHOP_PAGE } });

async function run(source: string, params: Record<string, unknown> = {}, timeoutMs = 10_000) {
  const page = await fixture.newPage('/shop');
  const session = createMemorySession({ params });
  try {
    const data = await runSandboxedScript({ source, page, session, timeoutMs });
    return { data, session, page };
  } finally {
    await page.context().close();
  }
}

async function failure(source: string, timeoutMs = 10_000) {
  const page = await fixture.newPage('/shop');
  const session = createMemorySession();
  try {
    await runSandboxedScript({ source, page, session, timeoutMs });
  } catch (error) {
    if (error instanceof ScriptError) return { error, session };
    throw error;
  } finally {
    await page.context().close();
  }
  throw new Error('the script was expected to fail');
}

describe('runSandboxedScript with a well-behaved script', () => {
  it('returns the data and records logs and steps in order', async () => {
    const { data, session } = await run(
      `export default async ({ page, params, log, step }) => {
        log('starting', { q: params.q });
        log.warn('careful');
        const title = await step('read title', async () => (await page.textContent('#title')).trim());
        await step('search', async () => {
          await page.fill('#q', params.q);
          await page.selectOption('#size', 'l');
          await page.check('#agree');
          await page.click('#go');
        });
        const products = await step('list products', () =>
          page.$$eval('li.product', (els, attr) => els.map((el) => ({
            name: el.querySelector('.name').textContent.trim(),
            sku: el.getAttribute(attr),
          })), 'data-sku'),
        );
        log.error('done');
        return { title, result: await page.textContent('#out'), products, pageTitle: await page.title() };
      };`,
      { q: 'fruit' },
    );
    expect(data).toEqual({
      title: 'Products',
      result: 'Searched: fruit / l / true',
      products: [
        { name: 'Apple', sku: 'a1' },
        { name: 'Banana', sku: 'b2' },
        { name: 'Cherry', sku: 'c3' },
      ],
      pageTitle: 'Fixture shop',
    });
    expect(session.logs).toEqual([
      { level: 'info', source: 'script', message: 'starting {"q":"fruit"}' },
      { level: 'warn', source: 'script', message: 'careful' },
      { level: 'error', source: 'script', message: 'done' },
    ]);
    expect(
      session.steps.map(({ index, action, status, data: stepData, error }) => ({
        index,
        action,
        status,
        stepData,
        error,
      })),
    ).toEqual([
      { index: 0, action: 'read title', status: 'completed', stepData: 'Products', error: null },
      { index: 1, action: 'search', status: 'completed', stepData: null, error: null },
      {
        index: 2,
        action: 'list products',
        status: 'completed',
        stepData: data && (data as { products: unknown }).products,
        error: null,
      },
    ]);
    for (const step of session.steps) expect(step.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('bridges evaluate, $eval, reads, navigation, keyboard and screenshots', async () => {
    const { data, session } = await run(`export default async ({ page }) => {
      const sum = await page.evaluate(([a, b]) => a + b, [2, 3]);
      const sku = await page.$eval('li.product', (el, name) => el.getAttribute(name), 'data-sku');
      const asyncText = await page.evaluate(async () => document.title.toUpperCase());
      await page.focus?.('#q');
      await page.click('#q');
      await page.keyboard.type('typed');
      await page.press('#q', 'End');
      await page.waitForSelector('#footer', { state: 'attached', timeout: 2000 });
      const shot = await page.screenshot({ fullPage: false });
      const nav = await page.goto('/shop?again=1');
      return {
        sum, sku, asyncText, shot,
        value: await page.inputValue('#q'),
        href: await page.getAttribute('li.product a', 'href'),
        visible: await page.isVisible('#title'),
        inner: await page.innerText('#title'),
        nav,
        url: await page.url(),
        hasHtml: (await page.content()).includes('Fixture shop'),
        nothing: typeof (await page.evaluate(() => undefined)),
      };
    };`);
    expect(data).toEqual({
      sum: 5,
      sku: 'a1',
      asyncText: 'FIXTURE SHOP',
      shot: { artifactId: 'artifact-1' },
      value: '',
      href: '/apple',
      visible: true,
      inner: 'Products',
      nav: { status: 200, url: fixture.server.url('/shop?again=1') },
      url: fixture.server.url('/shop?again=1'),
      hasHtml: true,
      nothing: 'undefined',
    });
    const artifact = session.artifacts.get('artifact-1');
    expect(artifact?.contentType).toBe('image/png');
    expect(artifact?.data.subarray(1, 4).toString()).toBe('PNG');
  });

  it('records a failing step as failed, skipped when optional, and the failure as the error', async () => {
    const { error, session } = await failure(`export default async ({ page, step }) => {
      await step('optional', () => page.click('#missing', { timeout: 100 }), { optional: true }).catch(() => null);
      await step('outer', async () => {
        await step('inner', async () => 'inner value');
        await page.click('#missing', { timeout: 100 });
      });
    };`);
    expect(error.message).toMatch(/^Script error: page\.click: Timeout 100ms exceeded/);
    expect(session.steps.map((s) => [s.index, s.action, s.status, s.data])).toEqual([
      [0, 'optional', 'skipped', null],
      [1, 'outer', 'failed', null],
      [2, 'inner', 'completed', 'inner value'],
    ]);
    expect(session.steps[1]?.error).toMatch(/^page\.click: Timeout 100ms exceeded/);
  });

  it('returns null for no data and refuses data that is not JSON', async () => {
    expect((await run('export default async () => {}')).data).toBeNull();
    const { error } = await failure('export default async () => ({ n: 1n })');
    expect(error.message).toMatch(/^Script error: TypeError: the returned data is not JSON-serialisable/);
  });

  it('checks what crosses the bridge', async () => {
    await expect(failure(`export default async ({ page }) => page.goto('file:///etc/passwd')`)).resolves.toMatchObject({
      error: {
        message:
          'Script error: page.goto: url_not_allowed: file: URLs cannot be opened, only http(s) (file:///etc/passwd)',
      },
    });
    await expect(
      failure(`export default async ({ page }) => page.screenshot({ path: '/tmp/x.png' })`),
    ).resolves.toMatchObject({
      error: { message: "Script error: page.screenshot: option 'path' is not supported" },
    });
    await expect(failure(`export default async ({ page }) => page.click({ selector: '#go' })`)).resolves.toMatchObject({
      error: { message: 'Script error: page.click: selector must be a string' },
    });
    await expect(failure(`export default async ({ page }) => page.evaluate(() => 10n)`)).resolves.toMatchObject({
      error: { message: 'Script error: the page returned a value that is not JSON-serialisable' },
    });
    await expect(failure(`export const notDefault = 1;`)).resolves.toMatchObject({
      error: { message: expect.stringMatching(/^Script error: TypeError: the script must export a default function/) },
    });
    await expect(failure(`export default async ({ page }) => { await page.frobnicate() }`)).resolves.toMatchObject({
      error: { message: 'Script error: TypeError: not a function' },
    });
  });
});
