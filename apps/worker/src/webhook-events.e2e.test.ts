import type { RoleHandle } from '@botfleet/core';
import { startFixtureServer, startReceiver, waitUntil, type FixtureServer, type TestReceiver } from '@botfleet/testkit';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * Webhook events from real runs: Chromium against pages on loopback, the worker completing runs,
 * the delivery role sending to a receiver on loopback.
 */

let h: E2eHarness;
let site: FixtureServer;
let receiver: TestReceiver;
let delivery: RoleHandle;
/** What the /price page shows now; the tests change it between runs. */
let price = '9.99';
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

beforeAll(async () => {
  site = await startFixtureServer({
    '/price': (_req, res) =>
      void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<!doctype html><body><h1>  Widget </h1><p id="price">${price}</p></body>`),
    '/broken': '<!doctype html><body><p>no button here</p></body>',
  });
  receiver = await startReceiver((_req, res) => void res.writeHead(204).end());
  h = await createE2eHarness();
  delivery = await h.startDelivery();
});
afterAll(async () => {
  await delivery.stop();
  await h.close();
  await receiver.close();
  await site.close();
});

const hooks = (path: string) => receiver.requests.filter((r) => r.url === path);
const verify = (hit: (typeof receiver.requests)[number]) =>
  new Webhook(secret).verify(hit.body, {
    'webhook-id': String(hit.headers['webhook-id']),
    'webhook-timestamp': String(hit.headers['webhook-timestamp']),
    'webhook-signature': String(hit.headers['webhook-signature']),
  }) as { type: string; timestamp: string; data: Record<string, unknown> };

it('sends a signed execution.failed envelope with the error and a screenshot URL that works', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/broken'),
    manifest: { webhook: { url: `${receiver.url}/failed`, auth: 'hmac', secret, events: ['execution.failed'] } },
    steps: [{ action: 'click', selector: '#missing', timeout: 500 }],
  });
  const executionId = await h.trigger(botId);
  expect((await h.waitForFinal(executionId)).status).toBe('failed');

  const hit = await waitUntil(() => hooks('/failed')[0], { timeoutMs: 15_000, message: 'the execution.failed event' });
  expect(hit.headers['x-botfleet-event']).toBe('execution.failed');
  const event = verify(hit);
  expect(event).toMatchObject({
    type: 'execution.failed',
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    data: { executionId, botId, status: 'failed', error: expect.stringContaining('#missing') },
  });
  const url = new URL(String(event.data.screenshotUrl));
  const png = await request(h.api.app).get(`${url.pathname}${url.search}`);
  expect(png.status).toBe(200);
  expect(png.headers['content-type']).toBe('image/png');
  expect(
    Buffer.from(png.body as Buffer)
      .subarray(1, 4)
      .toString('latin1'),
  ).toBe('PNG');
});

it('detects changed data across runs: dataChanged true, false, true and two data.changed events', async () => {
  price = '9.99';
  const botId = await h.createBot({
    targetUrl: site.url('/price'),
    manifest: {
      webhook: {
        url: `${receiver.url}/changes`,
        auth: 'hmac',
        secret,
        events: ['data.changed', 'execution.completed'],
        envelope: true,
      },
    },
    steps: [
      { action: 'extract', name: 'title', selector: 'h1' },
      { action: 'extract', name: 'price', selector: '#price' },
    ],
  });
  const changed: unknown[] = [];
  const runIds: string[] = [];
  for (const shown of ['9.99', '9.99', '12.50']) {
    price = shown;
    const executionId = await h.trigger(botId);
    const view = await h.waitForFinal(executionId);
    expect(view.status).toBe('completed');
    changed.push(view.dataChanged);
    runIds.push(executionId);
  }
  expect(changed).toEqual([true, false, true]);

  await waitUntil(() => hooks('/changes').length >= 5 || undefined, { timeoutMs: 15_000, message: 'five deliveries' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const events = hooks('/changes').map(verify);
  const dataChanged = events.filter((e) => e.type === 'data.changed');
  expect(dataChanged).toHaveLength(2);
  expect(dataChanged.map((e) => e.data.executionId).sort()).toEqual([runIds[0], runIds[2]].sort());
  const last = dataChanged.find((e) => e.data.executionId === runIds[2])!;
  expect(last.data).toMatchObject({ previousExecutionId: runIds[1], data: { price: '12.50' } });
  expect(events.filter((e) => e.type === 'execution.completed')).toHaveLength(3);
});

it('holds back the unchanged completion with onlyOnChange', async () => {
  price = '1.00';
  const botId = await h.createBot({
    targetUrl: site.url('/price'),
    manifest: { webhook: { url: `${receiver.url}/only`, auth: 'none', onlyOnChange: true, dataPath: 'price' } },
    steps: [{ action: 'extract', name: 'price', selector: '#price' }],
  });
  const runs: string[] = [];
  for (const shown of ['1.00', '1.00', '2.00']) {
    price = shown;
    const executionId = await h.trigger(botId);
    expect((await h.waitForFinal(executionId)).status).toBe('completed');
    runs.push(executionId);
  }
  await waitUntil(() => hooks('/only').length >= 2 || undefined, { timeoutMs: 15_000, message: 'two deliveries' });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(hooks('/only').map((r) => [r.headers['x-botfleet-execution-id'], r.body])).toEqual([
    [runs[0], '"1.00"'],
    [runs[2], '"2.00"'],
  ]);
});
