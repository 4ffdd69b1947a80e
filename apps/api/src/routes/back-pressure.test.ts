import { listExecutions } from '@botfleet/db';
import { cancelExecution } from '@botfleet/db/state';
import request from 'supertest';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/* MAX_PENDING_EXECUTIONS_PER_ORG: triggers and batches past the cap answer 429 with Retry-After. */

const MAX_PENDING = 5;
let h: ApiHarness;

beforeAll(async () => {
  h = await createApiHarness({ maxPendingExecutionsPerOrg: MAX_PENDING });
});
afterAll(() => h.close());

const trigger = (org: TestOrg, botId: string) =>
  request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
const batch = (org: TestOrg, botId: string, n: number) =>
  request(h.app)
    .post(`/api/v1/bots/${botId}/executions/batch`)
    .set(org.auth('write'))
    .send({ runs: Array.from({ length: n }, () => ({})) });

function expectRefused(res: request.Response): void {
  expect(res.status).toBe(429);
  expect(res.body.error.code).toBe('rate_limited');
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

it('answers 429 with Retry-After past the pending cap, per organization, and accepts again once runs end', async () => {
  const org = await h.newOrg();
  const botId = await h.newBot(org, { name: 'busy' });
  expect((await batch(org, botId, 4)).status).toBe(202);
  expect((await trigger(org, botId)).status).toBe(202); // 5 pending: at the cap
  expectRefused(await trigger(org, botId));
  const [oldest] = (await listExecutions(h.db, botId, { limit: 10 })).items;
  expectRefused(await request(h.app).post(`/api/v1/executions/${oldest!.id}/rerun`).set(org.auth('write')).send({}));

  // Another organization is not held back by this one's backlog.
  const other = await h.newOrg();
  expect((await trigger(other, await h.newBot(other, { name: 'calm' }))).status).toBe(202);

  // Runs that end make room again.
  const [first] = (await listExecutions(h.db, botId, { limit: 10 })).items;
  await cancelExecution(h.db, org.id, first!.id);
  expect((await trigger(org, botId)).status).toBe(202);
  expect((await listExecutions(h.db, botId, { limit: 10 })).items).toHaveLength(6);
});

it('refuses a whole batch that would pass the cap, creating nothing', async () => {
  const org = await h.newOrg();
  const botId = await h.newBot(org, { name: 'batch' });
  expect((await batch(org, botId, 3)).status).toBe(202);
  const res = await batch(org, botId, 3);
  expectRefused(res);
  expect(res.body.error.details).toMatchObject({ pending: 3, maxPending: MAX_PENDING });
  expect((await listExecutions(h.db, botId, { limit: 10 })).items).toHaveLength(3);
  expect((await batch(org, botId, 2)).status).toBe(202);
});
