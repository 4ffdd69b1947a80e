import { startReceiver, waitUntil, type TestReceiver } from '@botfleet/testkit';
import { createDeliveryFixture, type DeliveryFixture } from './testing/delivery-fixture';

let f: DeliveryFixture;
let receiver: TestReceiver;

beforeAll(async () => {
  f = await createDeliveryFixture();
  receiver = await startReceiver();
  // Production settings: private targets refused. No retries, so the one refusal is final.
  await f.startRole({ allowPrivateNetwork: false, retryDelaysMs: [] });
});
afterAll(async () => {
  await f.close();
  await receiver.close();
});

it('refuses a name that resolves to loopback without connecting, and records why without the address', async () => {
  const botId = await f.newBot({
    url: `http://localhost:${receiver.port}/hook`,
    auth: 'hmac',
    secret: 'never-sent-secret',
  });
  const { executionId } = await f.completeRun(botId, { a: 1 });

  const delivery = await waitUntil(
    async () => {
      const res = await f.deliveries(executionId);
      return res.body.data[0]?.status === 'failed' ? res.body.data[0] : undefined;
    },
    { timeoutMs: 10_000, message: 'the refused delivery to fail' },
  );
  expect(delivery.attemptCount).toBe(1);
  expect(delivery.attempts).toHaveLength(1);
  expect(delivery.attempts[0].statusCode).toBeNull();
  // The host as the URL gave it, nothing about how it resolved.
  expect(delivery.attempts[0].error).toBe('destination_not_allowed: localhost');
  expect(delivery.lastError).toBe(delivery.attempts[0].error);
  expect(receiver.connections()).toBe(0);
});
