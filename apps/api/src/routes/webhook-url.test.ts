import { createCompletedExecutionWithDelivery } from '@botfleet/db/testing';
import { startReceiver, type TestReceiver } from '@botfleet/testkit';
import request from 'supertest';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/*
 * Webhook URLs (contract part 3, section 2): no user-info, query values are secrets to `read`
 * keys wherever the URL shows, and a refused destination names the host as given, nothing more.
 */

let h: ApiHarness;
let org: TestOrg;
let receiver: TestReceiver;
beforeAll(async () => {
  // Production's setting: private destinations are refused.
  h = await createApiHarness({ allowPrivateNetwork: false });
  org = await h.newOrg();
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

const putWebhook = (botId: string, webhook: object) =>
  request(h.app).put(`/api/v1/bots/${botId}/manifest`).set(org.auth('write')).send({ webhook });
const getManifest = (botId: string, permission: 'read' | 'write' | 'admin') =>
  request(h.app).get(`/api/v1/bots/${botId}/manifest`).set(org.auth(permission));

describe('user-info in a webhook URL', () => {
  it.each([
    ['webhook.url', { url: 'https://user:pass@hooks.example/in' }],
    ['webhook.url', { url: 'https://token@hooks.example/in' }],
    [
      'webhook.loginUrl',
      {
        url: 'https://hooks.example/in',
        auth: 'jwt',
        loginUrl: 'https://u:p@auth.example/login',
        username: 'u',
        password: 'p',
      },
    ],
  ])('is refused with 400 naming %s', async (field, webhook) => {
    const botId = await h.newBot(org);
    const res = await putWebhook(botId, webhook);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      expect.objectContaining({
        path: field,
        message: expect.stringContaining('webhook.auth'),
      }),
    ]);
    expect((await getManifest(botId, 'write')).body.webhook).toBeNull();
  });

  it('stored before the rule: still readable (masked), and the test send refuses it naming the field', async () => {
    const botId = await h.newBot(org);
    expect((await putWebhook(botId, { url: 'https://hooks.example/in' })).status).toBe(200);
    await h.db.manifest.update({
      where: { botId },
      data: { webhook: { url: 'https://user:hunter2pw@hooks.example/in?token=abc', auth: 'none' } },
    });
    const read = await getManifest(botId, 'read');
    expect(read.status).toBe(200);
    expect(read.body.webhook.url).toBe('https://********@hooks.example/in?token=********');
    const test = await request(h.app).post(`/api/v1/bots/${botId}/webhook/test`).set(org.auth('write'));
    expect(test.status).toBe(400);
    expect(test.body.error.code).toBe('validation_error');
    expect(test.body.error.details).toEqual([expect.objectContaining({ path: 'webhook.url' })]);
    expect(JSON.stringify(test.body)).not.toContain('hunter2pw');
  });
});

describe('query values of a webhook URL', () => {
  const url = 'https://hooks.example/in/path?token=s3cr3t-value&team=ops&flag#frag-secret';
  const loginUrl = 'https://auth.example/login?client_secret=login-s3cr3t';

  it('are masked for read keys in the manifest and in deliveries, names kept; write and admin keys see them', async () => {
    const botId = await h.newBot(org);
    const put = await putWebhook(botId, { url, auth: 'jwt', loginUrl, username: 'u', password: 'pw' });
    expect(put.status).toBe(200);
    expect(put.body.webhook.url).toBe(url);

    const read = await getManifest(botId, 'read');
    expect(read.body.webhook.url).toBe('https://hooks.example/in/path?token=********&team=********&********#********');
    expect(read.body.webhook.loginUrl).toBe('https://auth.example/login?client_secret=********');
    expect(JSON.stringify(read.body)).not.toMatch(/s3cr3t|frag-secret|ops/);
    for (const permission of ['write', 'admin'] as const) {
      const seen = (await getManifest(botId, permission)).body.webhook;
      expect([seen.url, seen.loginUrl]).toEqual([url, loginUrl]);
    }

    const { executionId } = await createCompletedExecutionWithDelivery(h.db, {
      botId,
      organizationId: org.id,
      extractedData: { a: 1 },
    });
    const deliveriesPath = `/api/v1/executions/${executionId}/deliveries`;
    const asRead = await request(h.app).get(deliveriesPath).set(org.auth('read'));
    expect(asRead.body.data[0].url).toBe(read.body.webhook.url);
    const ofBot = await request(h.app).get(`/api/v1/bots/${botId}/deliveries`).set(org.auth('read'));
    expect(ofBot.body.data[0].url).toBe(read.body.webhook.url);
    const asWrite = await request(h.app).get(deliveriesPath).set(org.auth('write'));
    expect(asWrite.body.data[0].url).toBe(url);
  });
});

describe('a refused destination', () => {
  it('names the host as given and nothing about how it resolved', async () => {
    const botId = await h.newBot(org);
    expect((await putWebhook(botId, { url: `http://localhost:${receiver.port}/hook?token=t0ken` })).status).toBe(200);
    const res = await request(h.app).post(`/api/v1/bots/${botId}/webhook/test`).set(org.auth('write'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: false, statusCode: null, error: 'destination_not_allowed: localhost' });
    expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|::1|t0ken/);
    expect(receiver.connections()).toBe(0);
  });
});
