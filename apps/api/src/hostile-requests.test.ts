import { encodeCursor, newId } from '@botfleet/core';
import type { PrismaClient } from '@botfleet/db';
import { connect, type Socket } from 'node:net';
import request from 'supertest';
import { apiRoutes, createApp } from './app';
import { createApiHarness, type ApiHarness, type TestOrg } from './testing/api-harness';

/*
 * The defects a hostile client found, one test each: every one answered 500 (or held a socket)
 * before. The fuzz suite (hostile-fuzz.test.ts) covers the space around them.
 */

let h: ApiHarness;
let org: TestOrg;
let botId: string;

beforeAll(async () => {
  h = await createApiHarness();
  org = await h.newOrg();
  botId = await h.newBot(org);
});
afterAll(() => h.close());

function expectEnvelope(res: request.Response, status: number, code: string): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(typeof res.body.error.message).toBe('string');
}

describe('malformed paths', () => {
  it.each([
    ['/api/v1/bots/%E0%A4%A', true],
    ['/api/v1/bots/%E0%A4%A', false],
    ['/api/v1/executions/%ZZ/logs', true],
    ['/api/v1/bots/%C0%80/manifest', true],
  ])('%s (key: %s) is a 4xx envelope', async (path, withKey) => {
    const req = request(h.app).get(path);
    const res = withKey ? await req.set(org.auth('read')) : await req;
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.code).toEqual(expect.any(String));
  });

  it('answers a malformed percent-escape with validation_error in the path', async () => {
    expectEnvelope(await request(h.app).get('/api/v1/bots/%E0%A4%A').set(org.auth('read')), 400, 'validation_error');
  });

  it.each([
    'bot_%00',
    `${botId?.slice(0, -1) ?? 'bot_x'}%00`,
    'bot_doesnotexist',
    'x'.repeat(10_000),
    "bot_'%20OR%201=1",
  ])('answers 404 for the id %s', async (id) => {
    expectEnvelope(await request(h.app).get(`/api/v1/bots/${id}`).set(org.auth('read')), 404, 'not_found');
  });

  it('still checks the key before the id, and the body before existence', async () => {
    expectEnvelope(await request(h.app).get('/api/v1/bots/bot_%00'), 401, 'unauthorized');
    const res = await request(h.app).patch('/api/v1/bots/nope').set(org.auth('write')).send({ name: 7 });
    expectEnvelope(res, 400, 'validation_error');
  });

  it('answers an id that cannot exist without a database query', async () => {
    let queries = 0;
    const counting = h.db.$extends({
      query: {
        async $allOperations({ model, args, query }) {
          if (model !== 'ApiKey') queries++;
          return query(args);
        },
      },
    }) as unknown as PrismaClient;
    const app = createApp({ ...h.deps, db: counting });
    expect((await request(app).get(`/api/v1/bots/${botId}`).set(org.auth('read'))).status).toBe(200);
    expect(queries).toBeGreaterThan(0);
    queries = 0;
    for (const path of [
      '/bots/bot_nope',
      '/bots/bot_%00/manifest',
      '/executions/exe_1/logs',
      `/executions/${botId}`,
      '/bots/x/scripts/scr_1',
    ]) {
      expectEnvelope(await request(app).get(`/api/v1${path}`).set(org.auth('read')), 404, 'not_found');
    }
    expect(queries).toBe(0);
  });
});

describe('cursors', () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    ['a NUL byte', '%00'],
    ['a NUL inside the id', b64([1, `${newId('bot').slice(0, -1)}\u0000`])],
    ['an out-of-range date', b64([8.64e15 + 1, newId('bot')])],
    ['a huge date', b64([Number.MAX_SAFE_INTEGER, newId('bot')])],
    ['a truncated cursor', encodeCursor({ createdAt: Date.now(), id: newId('bot') }).slice(0, 30)],
    ['another alphabet', 'a+b/c=='],
  ])('answers %s with validation_error on cursor', async (_label, cursor) => {
    for (const path of ['/api/v1/bots', `/api/v1/bots/${botId}/executions`]) {
      const res = await request(h.app).get(`${path}?cursor=${cursor}`).set(org.auth('read'));
      expectEnvelope(res, 400, 'validation_error');
      expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'cursor' })]);
    }
  });

  it('accepts a cursor it issued', async () => {
    await h.newBot(org);
    const first = await request(h.app).get('/api/v1/bots?limit=1').set(org.auth('read'));
    const next = await request(h.app).get(`/api/v1/bots?limit=1&cursor=${first.body.nextCursor}`).set(org.auth('read'));
    expect(next.status).toBe(200);
    expect(next.body.data[0].id).not.toBe(first.body.data[0].id);
  });
});

describe('body encodings', () => {
  it.each([
    ['gzip that is not gzip', 'gzip', 415],
    ['deflate that is not deflate', 'deflate', 415],
    ['an unknown encoding', 'x-snappy', 415],
  ])('answers %s with a 4xx envelope', async (_label, encoding) => {
    const res = await request(h.app)
      .post('/api/v1/bots')
      .set(org.auth('write'))
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', encoding)
      .send('{"name":"x","targetUrl":"https://a.example"}');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error.code).toEqual(expect.any(String));
  });

  it('refuses a NUL in a body key', async () => {
    const res = await request(h.app)
      .post('/api/v1/bots')
      .set(org.auth('write'))
      .set('Content-Type', 'application/json')
      .send('{"name":"x","targetUrl":"https://a.example","tags":{"a\\u0000":1}}');
    expectEnvelope(res, 400, 'validation_error');
  });
});

describe('query strings', () => {
  // PostgreSQL's text cannot hold NUL: every route refuses it in the query before binding it.
  it.each([
    ['the executions list’s botId', '/api/v1/executions?botId=bot_a%00b', 'botId'],
    ['the bots list’s search', '/api/v1/bots?q=a%00', 'q'],
    ['a bot’s executions filter', `/api/v1/bots/BOT/executions?status=%00`, 'status'],
    ['a key', '/api/v1/bots?a%00=1', 'a\\u0000'],
  ])('refuses a NUL in %s with the envelope', async (_label, url, field) => {
    const res = await request(h.app).get(url.replace('BOT', botId)).set(org.auth('read'));
    expectEnvelope(res, 400, 'validation_error');
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: field, in: 'query' })]);
  });
});

describe('slow clients', () => {
  let api: { port: number };
  beforeAll(async () => {
    api = await h.listen({ requestTimeoutMs: 600 });
  });

  /** Sends `head` (and nothing more) on a raw socket; resolves with all it reads until the server closes. */
  function sendAndRead(head: string): Promise<{ text: string; ms: number }> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const socket: Socket = connect(api.port, '127.0.0.1', () => socket.write(head));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      const giveUp = setTimeout(() => {
        socket.destroy();
        reject(new Error(`socket still open after 15 s; read: ${text}`));
      }, 15_000);
      socket.on('close', () => {
        clearTimeout(giveUp);
        resolve({ text, ms: Date.now() - started });
      });
      socket.on('error', reject);
    });
  }

  it('answers a body that never finishes with a 408 envelope and closes the connection', async () => {
    const head = `POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.keys.write}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`;
    const { text } = await sendAndRead(head);
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    expect(text).toContain('"code":"request_timeout"');
  });

  it('cuts off headers that never finish', async () => {
    const { text, ms } = await sendAndRead('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(text === '' || /^HTTP\/1\.1 408 /.test(text)).toBe(true);
    expect(ms).toBeLessThan(10_000);
  });

  it('keeps serving others meanwhile', async () => {
    const slow = sendAndRead(
      `POST /api/v1/bots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{`,
    );
    const res = await fetch(`http://127.0.0.1:${api.port}/healthz`);
    expect(res.status).toBe(200);
    await slow;
  });
});

describe('hostile bodies', () => {
  const deep = (depth: number, inner: string) => '{"a":'.repeat(depth) + inner + '}'.repeat(depth);
  const deepArray = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  /** Raw bodies a hostile or broken client might send. */
  const HOSTILE: [string, string][] = [
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"bot"'],
    ['an array', '[{"name":"x"}]'],
    [
      'wrong field types',
      '{"name":{"$ne":null},"targetUrl":["https://a.example"],"tags":{"0":"a"},"capabilities":"all","steps":7,"params":[1]}',
    ],
    ['a huge string', JSON.stringify({ name: 'x'.repeat(900_000), targetUrl: 'https://a.example' })],
    ['deep nesting', deep(5_000, '1')],
    ['very deep arrays', deepArray(100_000)],
    ['__proto__ at the root', '{"__proto__":{"polluted":true},"name":"x","targetUrl":"https://a.example"}'],
    ['__proto__ nested', '{"capabilities":{"__proto__":{"polluted":true}},"params":{"__proto__":{"polluted":true}}}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"polluted":true}},"name":"x"}'],
    ['not JSON', 'name=\'x\'; DROP TABLE "Bot";--'],
    ['truncated JSON', '{"name":"x",'],
    ['invalid unicode escapes', '{"name":"\\ud800\\uZZZZ"}'],
    ['a NUL byte', '{"name":"a\\u0000b","targetUrl":"https://a.example"}'],
  ];

  function writeRoutes() {
    return apiRoutes(h.deps)
      .map((r) => r.definition)
      .filter((d) => d.method === 'post' || d.method === 'put' || d.method === 'patch')
      .map((d) => ({
        method: d.method,
        path: `/api/v1${d.path.replace(':botId', botId).replace(/:([A-Za-z]+)/g, 'x')}`,
      }));
  }

  it('answers every hostile body on every write endpoint with a 4xx envelope and keeps serving', async () => {
    const routes = writeRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(4);
    for (const route of routes) {
      for (const [label, body] of HOSTILE) {
        const agent = request(h.app);
        const res = await agent[route.method](route.path)
          .set(org.auth('admin'))
          .set('Content-Type', 'application/json')
          .send(body);
        const summary = { route: `${route.method} ${route.path}`, label, status: res.status };
        expect(res.status >= 400 && res.status < 500 ? summary : { ...summary, body: res.body }).toEqual(summary);
        expect(res.body.error).toEqual(
          expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
        );
        expect(JSON.stringify(res.body)).not.toMatch(/at .*\.ts:\d+|node_modules/);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await request(h.app).get('/healthz')).status).toBe(200);
    expect((await request(h.app).get(`/api/v1/bots/${botId}`).set(org.auth('read'))).body.name).toBe('test bot');
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
});
