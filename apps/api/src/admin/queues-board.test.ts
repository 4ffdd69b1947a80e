import { jobCatalog } from '@botfleet/queue';
import request from 'supertest';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing';

/*
 * /admin/queues: Bull Board over every queue, for the operator only (HTTP Basic, OPS_ADMIN_TOKEN
 * as the password); no organization's key opens it, and without a token there is no board.
 */

const TOKEN = 'operator-token-0123456789';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let h: ApiHarness;
let org: TestOrg;
beforeAll(async () => {
  h = await createApiHarness({ opsAdminToken: TOKEN });
  org = await h.newOrg();
});
afterAll(() => h.close());

it('asks for Basic credentials without them', async () => {
  const res = await request(h.app).get('/admin/queues');
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toMatch(/^Basic realm="botfleet queues"/);
  expect(res.body.error.code).toBe('unauthorized');
});

it('refuses an organization’s admin key, as a bearer or as the password', async () => {
  const bearer = await request(h.app).get('/admin/queues').set(org.auth('admin'));
  expect(bearer.status).toBe(401);
  const asPassword = await request(h.app).get('/admin/queues').set('Authorization', basic('admin', org.keys.admin));
  expect(asPassword.status).toBe(401);
  const wrong = await request(h.app)
    .get('/admin/queues/api/queues')
    .set('Authorization', basic('admin', `${TOKEN}x`));
  expect(wrong.status).toBe(401);
});

it('shows the board and every queue to the operator', async () => {
  const auth = basic('operator', TOKEN);
  const page = await request(h.app).get('/admin/queues').set('Authorization', auth);
  expect(page.status).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  const api = await request(h.app).get('/admin/queues/api/queues').set('Authorization', auth);
  expect(api.status).toBe(200);
  const names = (api.body.queues as { name: string }[]).map((queue) => queue.name).sort();
  expect(names).toEqual([...new Set(jobCatalog.map((job) => job.queue))].sort());
});

it('is off (404) when OPS_ADMIN_TOKEN is unset', async () => {
  const plain = await createApiHarness();
  try {
    const res = await request(plain.app).get('/admin/queues').set('Authorization', basic('admin', TOKEN));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  } finally {
    await plain.close();
  }
});
