import type { RoleHandle } from '@botfleet/core';
import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import { Webhook } from 'standardwebhooks';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

let h: E2eHarness;
let site: FixtureServer;
let delivery: RoleHandle;
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

beforeAll(async () => {
  site = await startFixtureServer({
    '/page': '<!doctype html><body><ul><li>a</li><li>b</li></ul></body>',
    '/hook': (_req, res) => void res.writeHead(204).end(),
  });
  h = await createE2eHarness();
  delivery = await h.startDelivery();
});
afterAll(async () => {
  await delivery.stop();
  await h.close();
  await site.close();
});

it('delivers a completed execution’s data, narrowed by dataPath and signed, to the bot’s webhook', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/page'),
    manifest: { webhook: { url: site.url('/hook'), auth: 'hmac', secret, dataPath: 'items.1' } },
    steps: [{ action: 'extract', name: 'items', selector: 'li', multiple: true }],
  });
  const executionId = await h.trigger(botId);
  expect((await h.waitForFinal(executionId)).status).toBe('completed');

  const received = await site.waitForRequest((r) => r.path === '/hook', 15_000);
  expect(received.body).toBe('"b"');
  expect(received.headers['x-botfleet-execution-id']).toBe(executionId);
  expect(received.headers['x-botfleet-bot-id']).toBe(botId);
  expect(received.headers['x-botfleet-event']).toBe('execution.completed');
  const headers = {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  };
  expect(new Webhook(secret).verify(received.body, headers)).toBe('b');

  await waitUntil(
    async () => (await h.get(`/api/v1/executions/${executionId}/deliveries`)).body.data[0]?.status === 'succeeded',
    { timeoutMs: 10_000 },
  );
  const [row] = (await h.get(`/api/v1/executions/${executionId}/deliveries`)).body.data;
  expect(row).toMatchObject({
    id: headers['webhook-id'],
    status: 'succeeded',
    attemptCount: 1,
    attempts: [{ number: 1, statusCode: 204, error: null }],
  });
  expect(JSON.stringify(row)).not.toContain(secret);
});
