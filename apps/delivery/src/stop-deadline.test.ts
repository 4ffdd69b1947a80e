import { findDelivery } from '@botfleet/db/testing';
import { startReceiver, waitUntil, type TestReceiver } from '@botfleet/testkit';
import { createDeliveryFixture, type DeliveryFixture } from './testing/delivery-fixture';

let f: DeliveryFixture;
let receiver: TestReceiver;

beforeAll(async () => {
  f = await createDeliveryFixture();
  // A receiver that accepts the request and never answers.
  receiver = await startReceiver(() => undefined);
});
afterAll(async () => {
  await f.close();
  await receiver.close().catch(() => undefined); // the test closes it itself unless it failed early
});

async function deliveryRow(deliveryId: string) {
  const row = await findDelivery(f.h.db, deliveryId);
  if (!row) throw new Error(`delivery ${deliveryId} not found`);
  return row;
}

it('stop() gives up on a hung attempt at its deadline; the attempt keeps its lease on the row', async () => {
  const role = await f.startRole({ webhookTimeoutMs: 30_000, drainTimeoutMs: 300, retryDelaysMs: [] });
  const botId = await f.newBot({ url: `${receiver.url}/hang`, auth: 'none' });
  const { deliveryId } = await f.completeRun(botId, { a: 1 });
  await waitUntil(() => receiver.requests.length > 0, {
    timeoutMs: 10_000,
    message: 'the request to reach the receiver',
  });

  const started = Date.now();
  await role.stop();
  // Generous for a loaded machine, and far below the attempt's own 30 s timeout.
  expect(Date.now() - started).toBeLessThan(15_000);
  // Still pending, due only after the lease, so no sweeper retries it while it may be in flight.
  const row = await deliveryRow(deliveryId);
  expect(row).toMatchObject({ status: 'pending', attemptCount: 0 });
  expect(row.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 60_000);

  // Let the abandoned attempt end (the receiver drops it) before the database closes.
  await receiver.close();
  await waitUntil(async () => (await deliveryRow(deliveryId)).status === 'failed', {
    timeoutMs: 10_000,
    message: 'the cut-off attempt to be recorded',
  });
});
