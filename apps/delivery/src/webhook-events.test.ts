import { findStoredManifest } from '@botfleet/db';
import { noteWebhookFailing } from '@botfleet/db/state';
import { startReceiver, waitUntil, type TestReceiver } from '@botfleet/testkit';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { createDeliveryFixture, type DeliveryFixture } from './testing/delivery-fixture';

/*
 * Events part 2 on the delivery side: test sends, redelivery, the receiver's Retry-After and
 * 410 Gone, disabling after failing for too long, and a silent receiver that must not hold up
 * anyone else. Real API, PostgreSQL, Redis, delivery role and HTTP receivers on loopback.
 */

let f: DeliveryFixture;
let receiver: TestReceiver;
/** Arrival times per path, to measure delays between attempts. */
const arrivals = new Map<string, number[]>();
/** Per path: the answers to give in turn (status and headers); afterwards 200. */
const script = new Map<string, { status: number; headers?: Record<string, string> }[]>();
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

beforeAll(async () => {
  f = await createDeliveryFixture();
  receiver = await startReceiver((req, res) => {
    arrivals.set(req.url, [...(arrivals.get(req.url) ?? []), Date.now()]);
    const next = script.get(req.url)?.shift();
    res.writeHead(next?.status ?? 200, next?.headers ?? {}).end(next ? 'no' : 'ok');
  });
  // 300 ms between attempts, 4 attempts in all; failures for 1.5 s disable a webhook; a silent
  // receiver holds an attempt for 10 s (far longer than a loaded machine takes to deliver).
  await f.startRole({
    retryDelaysMs: [300, 300, 300],
    disableAfterMs: 1_500,
    concurrency: 4,
    webhookTimeoutMs: 10_000,
  });
});
afterAll(async () => {
  await f.close();
  await receiver.close();
});

const hits = (path: string) => receiver.requests.filter((r) => r.url === path);
const write = () => f.org.auth('write');
const manifestOf = async (botId: string) =>
  (await request(f.h.app).get(`/api/v1/bots/${botId}/manifest`).set(f.org.auth('read'))).body;
const finalDelivery = (executionId: string, id: string) =>
  waitUntil(
    async () => {
      const found = (await f.deliveries(executionId)).body.data.find((d: { id: string }) => d.id === id);
      return found && found.status !== 'pending' ? found : undefined;
    },
    { timeoutMs: 15_000, message: 'the delivery to end' },
  );

it('sends a signed webhook.test event now and reports the receiver’s answer, without retrying', async () => {
  script.set('/probe', [{ status: 503 }]);
  const botId = await f.newBot({ url: `${receiver.url}/probe`, auth: 'hmac', secret });
  const res = await request(f.h.app).post(`/api/v1/bots/${botId}/webhook/test`).set(write());
  expect(res.status).toBe(200);
  expect(res.body).toEqual({
    delivered: false,
    statusCode: 503,
    durationMs: expect.any(Number),
    error: 'receiver answered HTTP 503',
  });
  const [probe] = hits('/probe');
  expect(probe!.headers['x-botfleet-event']).toBe('webhook.test');
  const headers = {
    'webhook-id': String(probe!.headers['webhook-id']),
    'webhook-timestamp': String(probe!.headers['webhook-timestamp']),
    'webhook-signature': String(probe!.headers['webhook-signature']),
  };
  expect(new Webhook(secret).verify(probe!.body, headers)).toMatchObject({ type: 'webhook.test', data: { botId } });

  const ok = await request(f.h.app).post(`/api/v1/bots/${botId}/webhook/test`).set(write());
  expect(ok.body).toMatchObject({ delivered: true, statusCode: 200, error: null });
  // Nothing stored, nothing retried: exactly the two requests the two calls made.
  await new Promise((resolve) => setTimeout(resolve, 700));
  expect(hits('/probe')).toHaveLength(2);
  const listed = await request(f.h.app).get(`/api/v1/bots/${botId}/deliveries`).set(f.org.auth('read'));
  expect(listed.body).toEqual({ data: [], nextCursor: null });
});

it('redelivers a finished delivery with the same webhook-id and body, and lists it on the bot', async () => {
  const botId = await f.newBot({ url: `${receiver.url}/again`, auth: 'hmac', secret });
  const { executionId, deliveryId } = await f.completeRun(botId, { price: '9.99' });
  await finalDelivery(executionId, deliveryId);

  const res = await request(f.h.app).post(`/api/v1/deliveries/${deliveryId}/redeliver`).set(write());
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ id: deliveryId, status: 'pending', event: 'execution.completed' });
  await waitUntil(() => hits('/again').length === 2 || undefined, { timeoutMs: 10_000, message: 'the redelivery' });
  const [first, second] = hits('/again');
  expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
  expect(second!.body).toBe(first!.body);
  expect(first!.body).toBe('{"price":"9.99"}');
  const done = await finalDelivery(executionId, deliveryId);
  expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });

  const listed = await request(f.h.app)
    .get(`/api/v1/bots/${botId}/deliveries?status=succeeded&limit=1`)
    .set(f.org.auth('read'));
  expect(listed.status).toBe(200);
  expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([deliveryId]);
  const failedOnly = await request(f.h.app)
    .get(`/api/v1/bots/${botId}/deliveries?status=failed`)
    .set(f.org.auth('read'));
  expect(failedOnly.body.data).toEqual([]);
});

it('keeps another organization out (404) and a read key from changing anything (403)', async () => {
  const botId = await f.newBot({ url: `${receiver.url}/private`, auth: 'none' });
  const { executionId, deliveryId } = await f.completeRun(botId, { secret: 1 });
  await finalDelivery(executionId, deliveryId);
  const stranger = await f.h.newOrg();
  const before = hits('/private').length;

  for (const [method, path] of [
    ['get', `/api/v1/bots/${botId}/deliveries`],
    ['post', `/api/v1/bots/${botId}/webhook/test`],
    ['post', `/api/v1/deliveries/${deliveryId}/redeliver`],
  ] as const) {
    const res = await request(f.h.app)[method](path).set(stranger.auth('admin'));
    expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 404, code: 'not_found' });
  }
  for (const path of [`/api/v1/bots/${botId}/webhook/test`, `/api/v1/deliveries/${deliveryId}/redeliver`]) {
    const res = await request(f.h.app).post(path).set(f.org.auth('read'));
    expect({ path, status: res.status }).toEqual({ path, status: 403 });
  }
  expect(hits('/private')).toHaveLength(before);
});

it('caps a 429’s Retry-After at the longest retry delay: with 300 ms delays, `Retry-After: 60` waits no minute', async () => {
  script.set('/busy', [{ status: 429, headers: { 'retry-after': '60' } }]);
  const botId = await f.newBot({ url: `${receiver.url}/busy`, auth: 'none' });
  const { executionId, deliveryId } = await f.completeRun(botId, { n: 1 });
  // finalDelivery gives up after 15 s: an uncapped Retry-After would still be waiting then.
  const done = await finalDelivery(executionId, deliveryId);
  expect(done).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  const [first, second] = arrivals.get('/busy')!;
  expect(second! - first!).toBeLessThan(15_000);
});

it('disables the webhook at once on 410 Gone, sends nothing more, and a PUT enables it again', async () => {
  script.set('/gone', [{ status: 410 }]);
  const webhook = { url: `${receiver.url}/gone`, auth: 'none' };
  const botId = await f.newBot(webhook);
  const { executionId, deliveryId } = await f.completeRun(botId, { n: 1 });
  const done = await finalDelivery(executionId, deliveryId);
  expect(done).toMatchObject({ status: 'failed', attemptCount: 1, lastError: 'receiver answered HTTP 410' });

  const manifest = await manifestOf(botId);
  expect(manifest.webhook).toMatchObject({
    disabledAt: expect.any(Number),
    disabledReason: 'the receiver answered 410 Gone',
  });
  // Disabled: a new run creates no delivery, a redelivery is refused, nothing reaches the receiver.
  const redeliver = await request(f.h.app).post(`/api/v1/deliveries/${deliveryId}/redeliver`).set(write());
  expect(redeliver.status).toBe(409);
  await expect(f.completeRun(botId, { n: 2 })).rejects.toThrow('no delivery created');
  expect(hits('/gone')).toHaveLength(1);

  // The GET can be sent back as is: the read-only fields are ignored, the webhook is enabled.
  const put = await request(f.h.app)
    .put(`/api/v1/bots/${botId}/manifest`)
    .set(write())
    .send({ webhook: manifest.webhook });
  expect(put.status).toBe(200);
  expect(put.body.webhook).toEqual({ ...webhook, events: ['execution.completed'] });
  expect((await findStoredManifest(f.h.db, botId))!.webhookDisabledAt).toBeNull();
  const again = await f.completeRun(botId, { n: 3 });
  expect(await finalDelivery(again.executionId, again.deliveryId)).toMatchObject({ status: 'succeeded' });
});

it('disables a webhook whose deliveries failed for WEBHOOK_DISABLE_AFTER_DAYS, and fails its pending ones', async () => {
  script.set(
    '/down',
    Array.from({ length: 20 }, () => ({ status: 500 })),
  );
  const botId = await f.newBot({ url: `${receiver.url}/down`, auth: 'none' });
  // The streak started a minute ago, far past the role's 1.5 s: the next failure disables the
  // webhook, however long this machine takes to get there (no race against the clock).
  await noteWebhookFailing(f.h.db, botId, new Date(Date.now() - 60_000));
  const deliveries = [await f.completeRun(botId, { n: 1 }), await f.completeRun(botId, { n: 2 })];
  // One fails and disables the webhook; the other, pending then, is failed with it.
  for (const { executionId, deliveryId } of deliveries) {
    expect((await finalDelivery(executionId, deliveryId)).status).toBe('failed');
  }
  const manifest = await waitUntil(
    async () => (await manifestOf(botId)).webhook.disabledAt && (await manifestOf(botId)),
    {
      timeoutMs: 10_000,
      message: 'the webhook to be disabled',
    },
  );
  expect(manifest.webhook.disabledReason).toMatch(/^every delivery failed for /);
});

it('does not let a receiver that never answers delay deliveries to another receiver', async () => {
  const silent = await startReceiver(() => undefined);
  try {
    const slowBot = await f.newBot({ url: `${silent.url}/never`, auth: 'none' });
    const fastBot = await f.newBot({ url: `${receiver.url}/fast`, auth: 'none' });
    // More silent deliveries than the role has slots (4; attempts time out after 10 s).
    for (let i = 0; i < 6; i++) await f.completeRun(slowBot, { i });
    await waitUntil(() => silent.requests.length >= 3 || undefined, { timeoutMs: 30_000, message: 'silent attempts' });
    const started = Date.now();
    await f.completeRun(fastBot, { fast: true });
    await waitUntil(() => hits('/fast').length === 1 || undefined, { timeoutMs: 10_000, message: 'the fast delivery' });
    const waited = Date.now() - started;
    // Well under the 10 s the silent receiver holds each of its attempts: it waited for no slot.
    expect(waited).toBeLessThan(5_000);
  } finally {
    await silent.close();
  }
});
