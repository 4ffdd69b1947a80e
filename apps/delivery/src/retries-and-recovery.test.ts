import { webhookDeliver } from '@botfleet/queue';
import { startReceiver, waitUntil, type TestReceiver } from '@botfleet/testkit';
import { createDeliveryFixture, type DeliveryFixture } from './testing/delivery-fixture';

let f: DeliveryFixture;
let receiver: TestReceiver;
/** Per receiving path: how many times to answer 500 before answering 200 (absent: always 500). */
const failuresBeforeSuccess = new Map<string, number>();

beforeAll(async () => {
  f = await createDeliveryFixture();
  receiver = await startReceiver((request, res) => {
    const left = failuresBeforeSuccess.get(request.url);
    if (left === undefined || left > 0) {
      if (left !== undefined) failuresBeforeSuccess.set(request.url, left - 1);
      return void res.writeHead(500).end('not now');
    }
    res.writeHead(200).end('ok');
  });
  // Retry delays of 50 and 100 ms: 1 + 2 attempts in all. The grace keeps the sweeper from
  // beating the lost-job test to its row before that test has put its own job in place.
  await f.startRole({ retryDelaysMs: [50, 100], sweepIntervalMs: 100, sweepGraceMs: 500 });
});
afterAll(async () => {
  await f.close();
  await receiver.close();
});

const finalDelivery = (executionId: string) =>
  waitUntil(
    async () => {
      const res = await f.deliveries(executionId);
      const delivery = res.body.data[0];
      return delivery && delivery.status !== 'pending' ? delivery : undefined;
    },
    { timeoutMs: 15_000, message: 'the delivery to end' },
  );

it('retries a receiver that fails twice, with the same webhook-id, and records three attempts', async () => {
  failuresBeforeSuccess.set('/flaky', 2);
  const botId = await f.newBot({ url: `${receiver.url}/flaky`, auth: 'hmac', secret: 'flaky-secret' });
  const { executionId, deliveryId } = await f.completeRun(botId, { ok: true });

  const delivery = await finalDelivery(executionId);
  const hits = receiver.requests.filter((r) => r.url === '/flaky');
  expect(hits.map((r) => r.headers['webhook-id'])).toEqual([deliveryId, deliveryId, deliveryId]);
  expect(hits.map((r) => r.body)).toEqual(['{"ok":true}', '{"ok":true}', '{"ok":true}']);
  expect(delivery).toMatchObject({
    id: deliveryId,
    status: 'succeeded',
    attemptCount: 3,
    nextAttemptAt: null,
    lastError: null,
  });
  expect(
    delivery.attempts.map((a: { number: number; statusCode: number | null; error: string | null }) => [
      a.number,
      a.statusCode,
      a.error,
    ]),
  ).toEqual([
    [1, 500, 'receiver answered HTTP 500'],
    [2, 500, 'receiver answered HTTP 500'],
    [3, 200, null],
  ]);
  // The retries waited at least the configured delays.
  const [first, second, third] = delivery.attempts as { startedAt: number }[];
  expect(second!.startedAt - first!.startedAt).toBeGreaterThanOrEqual(50);
  expect(third!.startedAt - second!.startedAt).toBeGreaterThanOrEqual(100);
});

it('marks a delivery failed after 1 + retries attempts against a receiver that never succeeds', async () => {
  const botId = await f.newBot({ url: `${receiver.url}/down`, auth: 'none' });
  const { executionId } = await f.completeRun(botId, { ok: false });

  const delivery = await finalDelivery(executionId);
  expect(delivery).toMatchObject({
    status: 'failed',
    attemptCount: 3,
    nextAttemptAt: null,
    lastError: 'receiver answered HTTP 500',
  });
  expect(typeof delivery.completedAt).toBe('number');
  expect(delivery.attempts.map((a: { number: number }) => a.number)).toEqual([1, 2, 3]);
  expect(receiver.requests.filter((r) => r.url === '/down')).toHaveLength(3);
});

it('re-enqueues a delivery whose job was lost from Redis, and delivers it', async () => {
  failuresBeforeSuccess.set('/lost', 0);
  const botId = await f.newBot({ url: `${receiver.url}/lost`, auth: 'none' });
  const { executionId, deliveryId } = await f.completeRun(botId, { lost: 1 }, { enqueue: false });
  // A live job (here delayed an hour) is left alone by the sweeper...
  const queue = f.h.queues.get(webhookDeliver.queue);
  const jobId = webhookDeliver.jobIdOf({ deliveryId }, { attempt: 1 });
  await webhookDeliver.enqueue(f.h.queues, { deliveryId }, { attempt: 1 }, { delay: 3_600_000 });
  expect(await queue.getJobState(jobId)).toBe('delayed');
  // ...until Redis loses it (as after a flush): only the row is left.
  await queue.obliterate({ force: true });
  expect(await queue.getJobState(jobId)).toBe('unknown');

  const delivery = await finalDelivery(executionId);
  expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
  expect(receiver.requests.filter((r) => r.url === '/lost').map((r) => r.headers['webhook-id'])).toEqual([deliveryId]);
});

it('drops a job with a garbage payload without retrying it', async () => {
  const queue = f.h.queues.get(webhookDeliver.queue);
  await queue.add(webhookDeliver.name, { nope: true }, { jobId: 'garbage-1', attempts: 3 });
  await waitUntil(async () => (await queue.getJobState('garbage-1')) === 'failed', {
    timeoutMs: 10_000,
    message: 'the garbage job to fail',
  });
  const job = (await queue.getJob('garbage-1'))!;
  expect(job.attemptsMade).toBe(1);
  expect(job.failedReason).toContain('invalid webhook.deliver payload');
});
