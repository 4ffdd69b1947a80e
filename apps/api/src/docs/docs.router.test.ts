import { createTestBrowserHost } from '@botfleet/runner/testing';
import request from 'supertest';
import { createApiHarness, type ApiHarness } from '../testing';

/*
 * /docs: the API reference (Scalar) with every asset served by botfleet itself. Loaded in Chromium:
 * it renders the operations, and no request leaves the machine.
 */

let h: ApiHarness;
let port: number;
const host = createTestBrowserHost();
beforeAll(async () => {
  h = await createApiHarness();
  ({ port } = await h.listen());
});
afterAll(async () => {
  await host.close();
  await h.close();
});

it('serves the page and its script with a same-origin content policy', async () => {
  const page = await request(h.app).get('/docs');
  expect(page.status).toBe(200);
  expect(page.text).toContain('<script src="/docs/scalar.js"></script>');
  expect(page.headers['content-security-policy']).toContain("default-src 'self'");
  const script = await request(h.app).get('/docs/scalar.js');
  expect(script.status).toBe(200);
  expect(script.headers['content-type']).toMatch(/javascript/);
});

it('renders the operations in Chromium without a request leaving 127.0.0.1', async () => {
  const browser = await host.getBrowser();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const elsewhere: string[] = [];
    // Anything not for this server is recorded and refused, so the test never depends on the Internet.
    await context.route('**/*', async (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' && url.port === String(port)) return route.continue();
      if (url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      elsewhere.push(url.href);
      return route.abort();
    });
    const base = `http://127.0.0.1:${port}`;
    await page.goto(`${base}/docs`);
    await page
      .getByText('List the organization’s bots: search, filter by tag and status, sort', { exact: false })
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByText('Delete a bot with its executions').first().waitFor({ timeout: 10_000 });
    // The other sections are listed (collapsed until opened).
    await page.getByText('Execution results', { exact: true }).first().waitFor({ timeout: 10_000 });
    expect(elsewhere).toEqual([]);
  } finally {
    await context.close();
  }
});
