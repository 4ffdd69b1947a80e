import request from 'supertest';
import { apiRoutes } from './app';
import { createApiHarness, type ApiHarness, type TestOrg } from './testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
let botId: string;

beforeAll(async () => {
  h = await createApiHarness();
  org = await h.newOrg();
  botId = (await request(h.app).post('/api/v1/bots').set(org.auth('write')).send({ name: 'target', targetUrl: 'https://a.example' })).body.id;
});
afterAll(() => h.close());

const deep = (depth: number, inner: string) => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/** Raw bodies a hostile or broken client might send. */
const HOSTILE: [string, string][] = [
  ['null', 'null'],
  ['a number', '42'],
  ['a string', '"bot"'],
  ['an array', '[{"name":"x"}]'],
  ['wrong field types', '{"name":{"$ne":null},"targetUrl":["https://a.example"],"tags":{"0":"a"},"capabilities":"all","steps":7,"params":[1]}'],
  ['a huge string', JSON.stringify({ name: 'x'.repeat(900_000), targetUrl: 'https://a.example' })],
  ['deep nesting', deep(5_000, '1')],
  ['very deep arrays', deepArray(100_000)],
  ['__proto__ at the root', '{"__proto__":{"polluted":true},"name":"x","targetUrl":"https://a.example"}'],
  ['__proto__ nested', '{"capabilities":{"__proto__":{"polluted":true}},"params":{"__proto__":{"polluted":true}}}'],
  ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}},"name":"x"}'],
  ['not JSON', "name='x'; DROP TABLE \"Bot\";--"],
  ['truncated JSON', '{"name":"x",'],
  ['invalid unicode escapes', '{"name":"\\ud800\\uZZZZ"}'],
  ['a NUL byte', '{"name":"a\\u0000b","targetUrl":"https://a.example"}'],
];

function writeRoutes() {
  return apiRoutes(h.deps)
    .map((r) => r.definition)
    .filter((d) => d.method === 'post' || d.method === 'put' || d.method === 'patch')
    .map((d) => ({ method: d.method, path: `/api/v1${d.path.replace(':botId', botId).replace(/:([A-Za-z]+)/g, 'x')}` }));
}

it('answers every hostile body on every write endpoint with a 4xx envelope and keeps serving', async () => {
  const routes = writeRoutes();
  expect(routes.length).toBeGreaterThanOrEqual(4);
  for (const route of routes) {
    for (const [label, body] of HOSTILE) {
      const res = await request(h.app)[route.method](route.path).set(org.auth('admin')).set('Content-Type', 'application/json').send(body);
      const summary = { route: `${route.method} ${route.path}`, label, status: res.status };
      expect(res.status >= 400 && res.status < 500 ? summary : { ...summary, body: res.body }).toEqual(summary);
      expect(res.body.error).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.any(String) }));
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+|node_modules/);
    }
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((await request(h.app).get('/healthz')).status).toBe(200);
  expect((await request(h.app).get(`/api/v1/bots/${botId}`).set(org.auth('read'))).body.name).toBe('target');
});

it('names the forbidden key', async () => {
  const res = await request(h.app)
    .post('/api/v1/bots')
    .set(org.auth('write'))
    .set('Content-Type', 'application/json')
    .send('{"name":"x","targetUrl":"https://a.example","__proto__":{"admin":true}}');
  expect(res.status).toBe(400);
  expect(res.body.error.details).toEqual([{ path: '__proto__', message: 'is not allowed', in: 'body' }]);
});
