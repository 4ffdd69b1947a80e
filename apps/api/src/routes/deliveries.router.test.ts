import { deleteBotsOfOrganization } from '@botfleet/db';
import { recordDeliveryAttempt } from '@botfleet/db/state';
import { createDeliveryForCompletedExecution, createTestExecution, findDelivery } from '@botfleet/db/testing';
import request from 'supertest';
import { DeliverySchema } from '../contracts/deliveries.contract';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
let stranger: TestOrg;

const SECRET = 'hmac-secret-that-must-not-leak';

beforeAll(async () => {
  h = await createApiHarness();
  org = await h.newOrg();
  stranger = await h.newOrg();
});
afterAll(async () => {
  for (const o of [org, stranger]) await deleteBotsOfOrganization(h.db, o.id);
  await h.close();
});

async function completedExecution(extractedData: unknown) {
  const webhook = { url: 'https://hooks.example/in', auth: 'hmac', secret: SECRET, dataPath: 'items' };
  const botId = await h.newBot(org, { name: 'd' }, { manifest: { webhook } });
  const execution = await createTestExecution(h.db, { botId, organizationId: org.id, completed: { extractedData } });
  return { botId, executionId: execution.id };
}

const getDeliveries = (executionId: string, who: TestOrg = org) =>
  request(h.app).get(`/api/v1/executions/${executionId}/deliveries`).set(who.auth('read'));

describe('GET /executions/:executionId/deliveries', () => {
  it('returns each delivery with its attempts, field by field, timestamps in Unix ms', async () => {
    const run = await completedExecution({ items: ['secret-looking-data'] });
    const { id } = (await createDeliveryForCompletedExecution(h.db, {
      ...run,
      extractedData: { items: ['secret-looking-data'] },
    }))!;
    const firstStart = new Date(Date.now() - 2_000);
    const retryAt = new Date(Date.now() + 60_000);
    await recordDeliveryAttempt(h.db, {
      deliveryId: id,
      number: 1,
      startedAt: firstStart,
      durationMs: 31,
      statusCode: 503,
      error: 'receiver answered HTTP 503',
      outcome: { status: 'pending', nextAttemptAt: retryAt },
    });

    const pending = await getDeliveries(run.executionId);
    expect(pending.status).toBe(200);
    const row = (await findDelivery(h.db, id))!;
    expect(pending.body).toEqual({
      data: [
        {
          id,
          executionId: expect.stringMatching(/^exe_/),
          event: 'execution.completed',
          status: 'pending',
          url: 'https://hooks.example/in',
          auth: 'hmac',
          attemptCount: 1,
          nextAttemptAt: retryAt.getTime(),
          lastError: 'receiver answered HTTP 503',
          createdAt: row.createdAt.getTime(),
          completedAt: null,
          attempts: [
            {
              number: 1,
              startedAt: firstStart.getTime(),
              durationMs: 31,
              statusCode: 503,
              error: 'receiver answered HTTP 503',
            },
          ],
        },
      ],
    });

    const secondStart = new Date();
    await recordDeliveryAttempt(h.db, {
      deliveryId: id,
      number: 2,
      startedAt: secondStart,
      durationMs: 7,
      statusCode: 204,
      error: null,
      outcome: { status: 'succeeded' },
    });
    const done = await getDeliveries(run.executionId);
    const [delivery] = done.body.data;
    expect(DeliverySchema.parse(delivery)).toEqual(delivery);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2, nextAttemptAt: null, lastError: null });
    expect(typeof delivery.completedAt).toBe('number');
    expect(delivery.attempts[1]).toEqual({
      number: 2,
      startedAt: secondStart.getTime(),
      durationMs: 7,
      statusCode: 204,
      error: null,
    });
    // Neither the secret (sealed or not) nor the delivered body appears.
    const text = JSON.stringify(done.body);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('v1.');
    expect(text).not.toContain('secret-looking-data');
  });

  it('returns an empty list for an execution without deliveries', async () => {
    const run = await completedExecution(null);
    const res = await getDeliveries(run.executionId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [] });
  });

  it('answers 404 for an unknown execution and for another organization’s', async () => {
    const run = await completedExecution({ items: [1] });
    await createDeliveryForCompletedExecution(h.db, { ...run, extractedData: { items: [1] } });
    for (const res of [await getDeliveries('exe_nope'), await getDeliveries(run.executionId, stranger)]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('is documented in the OpenAPI document', async () => {
    const res = await request(h.app).get('/api/v1/openapi.json');
    const op = res.body.paths['/executions/{executionId}/deliveries'].get;
    const schema = op.responses['200'].content['application/json'].schema;
    // A delivery is a shared component, referred to wherever one appears.
    expect(schema.properties.data.items).toEqual({ $ref: '#/components/schemas/Delivery' });
    const delivery = res.body.components.schemas.Delivery;
    expect(Object.keys(delivery.properties).sort()).toEqual(
      [
        'attemptCount',
        'attempts',
        'auth',
        'completedAt',
        'createdAt',
        'event',
        'executionId',
        'id',
        'lastError',
        'nextAttemptAt',
        'status',
        'url',
      ].sort(),
    );
  });
});
