import { type OrganizationLimitOverrides } from '@botfleet/core';
import { setOrganizationLimits } from '@botfleet/db';
import request from 'supertest';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/*
 * Operator limits per organization (contract part 3, section 2): set in the database by the
 * operator, shown by GET /organization, applied to keys, pending runs and the request rate.
 */

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness({
    maxApiKeysPerOrg: 5,
    maxPendingExecutionsPerOrg: 50,
    maxRunningExecutionsPerOrg: 7,
    rateLimitPerMinute: 0,
  });
});
afterAll(() => h.close());

/** What `npm run cli -- orgs limits --org <slug> ...` does (cli.test.ts runs the command itself). */
async function setLimits(org: TestOrg, changes: Partial<OrganizationLimitOverrides>) {
  const { slug } = await h.db.organization.findUniqueOrThrow({ where: { id: org.id }, select: { slug: true } });
  return setOrganizationLimits(h.db, slug, changes);
}

const getOrganization = (org: TestOrg) => request(h.app).get('/api/v1/organization').set(org.auth('read'));
const createKey = (org: TestOrg, name = 'extra') =>
  request(h.app).post('/api/v1/api-keys').set(org.auth('admin')).send({ name, permission: 'read' });

describe('GET /organization', () => {
  it('shows any key its organization, the limits in force with their source, and the usage', async () => {
    const org = await h.newOrg();
    const botId = await h.newBot(org, { name: 'b' });
    await request(h.app)
      .post(`/api/v1/bots/${botId}/executions/batch`)
      .set(org.auth('write'))
      .send({ runs: [{}, {}] });

    const res = await getOrganization(org);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: org.id,
      slug: expect.any(String),
      name: expect.any(String),
      limits: {
        maxRunningExecutions: { value: 7, source: 'default' },
        maxPendingExecutions: { value: 50, source: 'default' },
        maxApiKeys: { value: 5, source: 'default' },
        rateLimitPerMinute: { value: null, source: 'default' },
      },
      usage: { runningExecutions: 0, pendingExecutions: 2, apiKeys: 3, requestsThisMinute: null },
    });

    await setLimits(org, { maxRunningExecutions: 1, rateLimitPerMinute: 1000 });
    const after = await getOrganization(org);
    expect(after.body.limits).toEqual({
      maxRunningExecutions: { value: 1, source: 'organization' },
      maxPendingExecutions: { value: 50, source: 'default' },
      maxApiKeys: { value: 5, source: 'default' },
      rateLimitPerMinute: { value: 1000, source: 'organization' },
    });
    expect(after.body.usage.requestsThisMinute).toEqual(expect.any(Number));

    // Back to the default: null clears the organization's own value.
    await setLimits(org, { maxRunningExecutions: null });
    expect((await getOrganization(org)).body.limits.maxRunningExecutions).toEqual({ value: 7, source: 'default' });
  });

  it('offers tenants no way to change the limits', async () => {
    const org = await h.newOrg();
    for (const method of ['put', 'patch', 'post', 'delete'] as const) {
      const agent = request(h.app);
      const res = await agent[method]('/api/v1/organization')
        .set(org.auth('admin'))
        .send({ limits: { maxApiKeys: { value: 1000 } } });
      expect(res.status).toBe(404);
    }
    expect((await getOrganization(org)).body.limits.maxApiKeys).toEqual({ value: 5, source: 'default' });
  });
});

describe('the key cap', () => {
  it('answers 409 limit_reached past the cap, counting only unrevoked keys', async () => {
    const org = await h.newOrg(); // 3 keys
    expect((await createKey(org)).status).toBe(201);
    const fifth = await createKey(org);
    expect(fifth.status).toBe(201);
    const refused = await createKey(org);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toEqual({
      code: 'limit_reached',
      message: 'This organization already has 5 API keys, its maximum; revoke one to create another',
      details: { limit: 'maxApiKeys', max: 5 },
    });

    expect((await request(h.app).delete(`/api/v1/api-keys/${fifth.body.id}`).set(org.auth('admin'))).status).toBe(204);
    expect((await createKey(org)).status).toBe(201);
    expect((await createKey(org)).status).toBe(409);

    // The operator raises this organization's cap; others keep the default.
    await setLimits(org, { maxApiKeys: 6 });
    expect((await createKey(org)).status).toBe(201);
    expect((await getOrganization(org)).body.usage.apiKeys).toBe(6);
  });

  it('holds under concurrent creations: exactly the room left is created', async () => {
    const org = await h.newOrg(); // 3 keys, room for 2
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => createKey(org, `race ${i}`)));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(2);
    expect(answers.filter((res) => res.status === 409)).toHaveLength(6);
    expect(await h.db.apiKey.count({ where: { organizationId: org.id, revokedAt: null } })).toBe(5);
  });
});

describe('the pending cap', () => {
  it('uses the organization’s own cap when the operator set one', async () => {
    const org = await h.newOrg();
    await setLimits(org, { maxPendingExecutions: 2 });
    const botId = await h.newBot(org, { name: 'p' });
    const trigger = () => request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
    expect((await trigger()).status).toBe(202);
    expect((await trigger()).status).toBe(202);
    const refused = await trigger();
    expect(refused.status).toBe(429);
    expect(refused.body.error.details).toMatchObject({ maxPending: 2 });
    const batch = await request(h.app)
      .post(`/api/v1/bots/${botId}/executions/batch`)
      .set(org.auth('write'))
      .send({ runs: [{}] });
    expect(batch.status).toBe(429);
  });
});

describe('the organization’s rate', () => {
  it('is shared by all its keys, at the rate the operator set it', async () => {
    const org = await h.newOrg();
    await setLimits(org, { rateLimitPerMinute: 2 });
    // Start well inside a wall-clock minute so the requests share one window.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 55_000) await new Promise((resolve) => setTimeout(resolve, 60_050 - intoMinute));
    const statuses = [];
    for (const permission of ['read', 'write', 'admin'] as const) {
      statuses.push((await request(h.app).get('/api/v1/bots').set(org.auth(permission))).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    const other = await h.newOrg();
    expect((await request(h.app).get('/api/v1/bots').set(other.auth('read'))).status).toBe(200);
  });
});
