import { createApiKey, findApiKey, revokeApiKey } from '@botfleet/db';
import { createCompletedExecutionWithDelivery, createTestExecution } from '@botfleet/db/testing';
import request from 'supertest';
import { apiRoutes } from './app';
import { createApiHarness, type ApiHarness, type TestOrg } from './testing/api-harness';
import { SAMPLE_BODIES } from './testing/sample-requests';

/*
 * Every /api/v1 route, discovered from the route table itself, is checked for 401 (no, malformed,
 * unknown and revoked keys), 403 (too little permission) and 404 for another organization's
 * resources. A new route without a sample body (testing/sample-requests.ts) fails this suite on purpose.
 */

let h: ApiHarness;
let owner: TestOrg;
let stranger: TestOrg;
let ids: Record<string, string>;
let routes: ReturnType<typeof apiRoutes>;

beforeAll(async () => {
  h = await createApiHarness();
  owner = await h.newOrg();
  stranger = await h.newOrg();
  const botId = await h.newBot(owner, { name: 'owned' });
  const key = await createApiKey(h.db, { organizationId: owner.id, name: 'victim', permission: 'read' });
  const execution = await createTestExecution(h.db, { botId, organizationId: owner.id });
  const hooked = await h.newBot(
    owner,
    { name: 'hooked' },
    { manifest: { webhook: { url: 'https://hooks.example/in' } } },
  );
  const run = await createCompletedExecutionWithDelivery(h.db, {
    botId: hooked,
    organizationId: owner.id,
    extractedData: { a: 1 },
  });
  const profile = await request(h.app).post('/api/v1/profiles').set(owner.auth('write')).send({ name: 'owned' });
  const credential = await request(h.app)
    .post('/api/v1/credentials')
    .set(owner.auth('write'))
    .send({ name: 'owned', origins: ['https://shop.example'] });
  ids = {
    botId,
    credentialId: credential.body.id as string,
    profileId: profile.body.id as string,
    keyId: key.row.id,
    executionId: execution.id,
    index: '0',
    version: '1',
    scriptId: 'scr_unknown',
    deliveryId: run.deliveryId!,
  };
  routes = apiRoutes(h.deps);
});
afterAll(() => h.close());

const pathOf = (template: string) =>
  `/api/v1${template.replace(/:([A-Za-z]+)/g, (_m, name: string) => ids[name] ?? 'x')}`;
const call = (method: string, template: string, headers: Record<string, string>) => {
  const body = SAMPLE_BODIES[`${method} ${template}`];
  const req = request(h.app)[method as 'get'](pathOf(template)).set(headers);
  return body ? req.send(body) : req;
};
const routeCases = () =>
  routes
    .filter((r) => r.definition.permission !== null)
    .map((r) => [`${r.definition.method.toUpperCase()} ${r.definition.path}`, r.definition] as const);

it('has a sample body for every route', () => {
  for (const r of routes.filter((x) => x.definition.permission !== null))
    expect(Object.keys(SAMPLE_BODIES)).toContain(`${r.definition.method} ${r.definition.path}`);
});

it('answers 401 with WWW-Authenticate for missing, malformed, unknown and revoked keys on every route', async () => {
  const revoked = await createApiKey(h.db, { organizationId: owner.id, name: 'old', permission: 'admin' });
  expect(await revokeApiKey(h.db, owner.id, revoked.row.id)).toBe(true);
  const badHeaders: Record<string, string>[] = [
    {},
    { Authorization: 'Basic dXNlcjpwYXNz' },
    { Authorization: 'Bearer' },
    { Authorization: 'Bearer not-a-key' },
    { Authorization: `Bearer bf_${'A'.repeat(43)}` },
    { Authorization: `Bearer ${revoked.key}` },
  ];
  for (const [name, def] of routeCases()) {
    for (const headers of badHeaders) {
      const res = await call(def.method, def.path, headers);
      expect({ route: name, headers, status: res.status }).toEqual({ route: name, headers, status: 401 });
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.body.error.code).toBe('unauthorized');
    }
  }
});

it('answers 403 when the key lacks the permission', async () => {
  let checked = 0;
  for (const [name, def] of routeCases()) {
    const weaker =
      def.permission === 'admin' ? (['read', 'write'] as const) : def.permission === 'write' ? (['read'] as const) : [];
    for (const permission of weaker) {
      const res = await call(def.method, def.path, owner.auth(permission));
      expect({ route: name, permission, status: res.status }).toEqual({ route: name, permission, status: 403 });
      expect(res.body.error.code).toBe('forbidden');
      checked++;
    }
  }
  expect(checked).toBeGreaterThan(5);
});

it('answers 404 for another organization’s resources and changes nothing', async () => {
  let checked = 0;
  for (const [name, def] of routeCases()) {
    if (!/:([A-Za-z]+)/.test(def.path)) continue;
    const res = await call(def.method, def.path, stranger.auth('admin'));
    expect({ route: name, status: res.status }).toEqual({ route: name, status: 404 });
    expect(res.body.error.code).toBe('not_found');
    checked++;
  }
  expect(checked).toBeGreaterThan(3);
  const bot = await request(h.app).get(`/api/v1/bots/${ids.botId}`).set(owner.auth('read'));
  expect(bot.status).toBe(200);
  expect(bot.body.name).toBe('owned');
  expect(await findApiKey(h.db, ids.keyId!)).toMatchObject({ revokedAt: null });
  const credential = await request(h.app).get(`/api/v1/credentials/${ids.credentialId}`).set(owner.auth('read'));
  expect(credential.body).toMatchObject({ name: 'owned', username: null });
  const profile = await request(h.app).get(`/api/v1/profiles/${ids.profileId}`).set(owner.auth('read'));
  expect(profile.body).toMatchObject({ name: 'owned', description: null, version: 0 });
});

it('lists only the caller’s own bots, keys and queued runs', async () => {
  const bots = await request(h.app).get('/api/v1/bots').set(stranger.auth('read'));
  expect(bots.body.data).toEqual([]);
  const keys = await request(h.app).get('/api/v1/api-keys').set(stranger.auth('admin'));
  expect(keys.body.data.map((k: { name: string }) => k.name).sort()).toEqual(['admin', 'read', 'write']);
  // The owner has a pending run; the stranger's queue overview counts none of it.
  const queue = await request(h.app).get('/api/v1/queue').set(stranger.auth('admin'));
  expect(queue.body).toMatchObject({ pending: 0, running: 0, oldestPendingCreatedAt: null });
  // The organization view is the caller's own, with the caller's own usage.
  const organization = await request(h.app).get('/api/v1/organization').set(stranger.auth('read'));
  expect(organization.body).toMatchObject({
    id: stranger.id,
    usage: { runningExecutions: 0, pendingExecutions: 0, apiKeys: 3 },
  });
});
