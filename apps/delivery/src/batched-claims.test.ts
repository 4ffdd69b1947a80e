import { claimDueDeliveries } from '@botfleet/db/state';
import { webhookDeliver } from '@botfleet/queue';
import { startReceiver, waitUntil, type ReceivedRequest, type TestReceiver } from '@botfleet/testkit';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { createDeliveryFixture, type DeliveryFixture } from './testing/delivery-fixture';

/*
 * Claims and records are batched across the jobs a role runs at once (one statement each). The
 * guarantees stay those of one attempt at a time: at-least-once, one sender per attempt, the
 * stored body sent byte for byte on every attempt, every attempt recorded.
 */

let f: DeliveryFixture;
let receiver: TestReceiver;

beforeAll(async () => {
  f = await createDeliveryFixture();
  receiver = await startReceiver();
});
afterAll(async () => {
  await f.close();
  await receiver.close();
});

const hitsOf = (deliveryId: string): ReceivedRequest[] =>
  receiver.requests.filter((r) => r.headers['webhook-id'] === deliveryId);

const rowsOf = (deliveryIds: string[]) =>
  f.h.db.webhookDelivery.findMany({
    where: { id: { in: deliveryIds } },
    include: { attempts: { orderBy: { number: 'asc' } } },
  });

async function allSucceeded(deliveryIds: string[]) {
  return waitUntil(
    async () => {
      const rows = await rowsOf(deliveryIds);
      return rows.length === deliveryIds.length && rows.every((row) => row.status === 'succeeded') ? rows : undefined;
    },
    { timeoutMs: 30_000, message: 'every delivery to succeed' },
  );
}

it('a sender that dies after posting a claimed batch: its rows are redelivered with the same id and body', async () => {
  const botId = await f.newBot({ url: `${receiver.url}/crash`, auth: 'none' });
  const runs = await Promise.all(
    Array.from({ length: 6 }, (_, i) => f.completeRun(botId, { i, text: 'é ✓' }, { enqueue: false })),
  );
  const deliveryIds = runs.map((run) => run.deliveryId);

  // The dying sender: one claim for the batch, every body posted, then nothing recorded.
  const claimed = await claimDueDeliveries(f.h.db, {
    deliveryIds,
    dueBy: new Date(),
    leaseUntil: new Date(Date.now() + 60_000),
  });
  expect(claimed.map((d) => d.id).sort()).toEqual([...deliveryIds].sort());
  for (const delivery of claimed) {
    const res = await fetch(delivery.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'webhook-id': delivery.id },
      body: delivery.body,
    });
    expect(res.status).toBe(200);
  }
  // Claimed by someone else: a role's jobs for these rows send nothing while the lease holds. It
  // sweeps every 100 ms, and counts a row as lost 100 ms past its due time (the lease's end).
  await f.startRole({ concurrency: 8 });
  await Promise.all(
    deliveryIds.map((deliveryId) => webhookDeliver.enqueue(f.h.queues, { deliveryId }, { attempt: 1 })),
  );
  await waitUntil(async () => (await f.h.queues.get(webhookDeliver.queue).getJobCounts('wait', 'active')).wait === 0, {
    timeoutMs: 15_000,
    message: 'the jobs to be taken',
  });
  expect((await rowsOf(deliveryIds)).every((row) => row.status === 'pending' && row.attemptCount === 0)).toBe(true);

  // The lease runs out (moved into the past rather than waited for): the sweeper hands the rows on.
  await f.h.db.webhookDelivery.updateMany({
    where: { id: { in: deliveryIds } },
    data: { nextAttemptAt: new Date(Date.now() - 1_000) },
  });
  const rows = await allSucceeded(deliveryIds);
  for (const row of rows) {
    expect(row.attempts.map((a) => a.number)).toEqual([1]);
    const hits = hitsOf(row.id);
    expect(hits).toHaveLength(2);
    expect(hits.map((hit) => hit.body)).toEqual([row.body, row.body]);
  }
});

it('two roles on one queue, with two jobs per delivery, send each delivery once and record one attempt', async () => {
  // The role of the test before, and a second one.
  await f.startRole({ concurrency: 8 });
  const botId = await f.newBot({ url: `${receiver.url}/twice`, auth: 'none' });
  const runs = await Promise.all(Array.from({ length: 40 }, (_, i) => f.completeRun(botId, { i })));
  const deliveryIds = runs.map((run) => run.deliveryId);
  // A stray second job per delivery (as a sweeper re-enqueue racing the first one would be).
  await f.h.queues.get(webhookDeliver.queue).addBulk(
    deliveryIds.map((deliveryId) => ({
      name: webhookDeliver.name,
      data: { deliveryId },
      opts: { jobId: `stray-${deliveryId}` },
    })),
  );

  const rows = await allSucceeded(deliveryIds);
  for (const row of rows) {
    expect(row.attempts.map((a) => [a.number, a.statusCode])).toEqual([[1, 200]]);
  }
  // Both jobs of every delivery have run by now or find the row final: still one request each.
  await waitUntil(async () => (await f.h.queues.get(webhookDeliver.queue).getJobCounts('wait', 'active')).wait === 0, {
    timeoutMs: 15_000,
    message: 'the stray jobs to be taken',
  });
  expect(deliveryIds.map((id) => hitsOf(id).length)).toEqual(deliveryIds.map(() => 1));
});

it('a secret rotated by a PUT signs every attempt claimed after the PUT, never the cached one', async () => {
  const webhook = { url: `${receiver.url}/rotate`, auth: 'hmac', secret: 'first-secret-of-the-bot' };
  const botId = await f.newBot(webhook);
  const verify = (hit: ReceivedRequest, secret: string) =>
    new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' }).verify(hit.body, {
      'webhook-id': String(hit.headers['webhook-id']),
      'webhook-timestamp': String(hit.headers['webhook-timestamp']),
      'webhook-signature': String(hit.headers['webhook-signature']),
    });

  const before = await f.completeRun(botId, { n: 1 });
  await allSucceeded([before.deliveryId]);
  expect(verify(hitsOf(before.deliveryId)[0]!, webhook.secret)).toEqual({ n: 1 });

  const put = await request(f.h.app)
    .put(`/api/v1/bots/${botId}/manifest`)
    .set(f.org.auth('write'))
    .send({ webhook: { ...webhook, secret: 'second-secret-of-the-bot' } });
  expect(put.status).toBe(200);
  const after = await f.completeRun(botId, { n: 2 });
  await allSucceeded([after.deliveryId]);
  const hit = hitsOf(after.deliveryId)[0]!;
  expect(verify(hit, 'second-secret-of-the-bot')).toEqual({ n: 2 });
  expect(() => verify(hit, webhook.secret)).toThrow();
});
