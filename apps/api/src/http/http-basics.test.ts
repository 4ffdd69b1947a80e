import { createLogger } from '@botfleet/io';
import { startOpsServer } from '@botfleet/ops';
import request from 'supertest';
import { createApiHarness, useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness(
  (harness, first) => {
    h = harness;
    org = first;
  },
  { bodyLimitBytes: 16 * 1024 },
);

describe('cross-cutting HTTP behaviour', () => {
  it('gives every response an X-Request-Id and echoes a client one', async () => {
    const generated = await request(h.app).get('/healthz');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await request(h.app).get('/api/v1/bots').set('X-Request-Id', 'client-abc.123');
    expect(echoed.headers['x-request-id']).toBe('client-abc.123');
    const refused = await request(h.app).get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(refused.headers['x-request-id']).not.toBe('bad id with spaces');
  });

  it('serves liveness and readiness, and metrics only on the ops port, never on the API port', async () => {
    expect((await request(h.app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(h.app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok', redis: 'ok' } });
    await request(h.app).get('/api/v1/bots').set(org.auth('read'));

    // The whole fleet's load is not for anyone who can reach the public port, with or without a key.
    const { port } = await h.listen();
    for (const headers of [{}, org.auth('admin')]) {
      const onApiPort = await fetch(`http://127.0.0.1:${port}/metrics`, { headers });
      expect(onApiPort.status).toBe(404);
      expect(((await onApiPort.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }

    const ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      ops: h.deps.ops!,
      logger: createLogger({ level: 'silent' }),
    });
    try {
      const metrics = await fetch(`http://127.0.0.1:${ops.port}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('botfleet_http_requests_total{method="GET",route="/bots",status="200"}');
    } finally {
      await ops.close();
    }
  });

  it('refuses non-JSON bodies with 415', async () => {
    const res = await request(h.app)
      .post('/api/v1/bots')
      .set(org.auth('write'))
      .set('Content-Type', 'text/plain')
      .send('name=x');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
    const form = await request(h.app).post('/api/v1/bots').set(org.auth('write')).type('form').send({ name: 'x' });
    expect(form.status).toBe(415);
  });

  it('refuses malformed JSON with 400 invalid_json', async () => {
    const res = await request(h.app)
      .post('/api/v1/bots')
      .set(org.auth('write'))
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_json', message: 'Request body is not valid JSON' } });
  });

  it('refuses bodies over the limit with 413', async () => {
    // POST /bots has a limit of its own (it takes Chrome Recorder recordings, up to 5 MiB).
    const res = await request(h.app)
      .patch('/api/v1/bots/bot_any')
      .set(org.auth('write'))
      .send({ name: 'x', targetUrl: 'https://a.example', description: 'y'.repeat(20 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('answers unknown routes with the envelope', async () => {
    const res = await request(h.app).get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('publishes an OpenAPI 3.1 document generated from the route table', async () => {
    const res = await request(h.app).get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    // Paths are relative to the server URL, which carries the /api/v1 prefix; the URL is itself
    // relative, so one document (the committed openapi.json) fits every deployment.
    expect(res.body.servers).toEqual([{ url: '/api/v1', description: 'This botfleet deployment' }]);
    const createBot = res.body.paths['/bots'].post;
    expect(createBot.requestBody.content['application/json'].schema.properties.targetUrl).toBeDefined();
    expect(createBot.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(createBot.responses['201'].content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['id', 'name', 'targetUrl', 'kind', 'status', 'tags', 'createdAt']),
    );
    expect(res.body.paths['/bots/{botId}/manifest'].put['x-permission']).toBe('write');
    expect(res.body.paths['/bots'].get.parameters.map((p: { name: string }) => p.name)).toEqual([
      'limit',
      'cursor',
      'q',
      'tag',
      'status',
      'sort',
    ]);
  });
});

describe('rate limiting', () => {
  let limited: ApiHarness;
  let limitedOrg: TestOrg;
  beforeAll(async () => {
    limited = await createApiHarness({ rateLimitPerMinute: 3 });
    limitedOrg = await limited.newOrg();
  });
  afterAll(() => limited.close());

  it('answers 429 with Retry-After once a key used its requests for the minute, per key and per organization', async () => {
    // The window is the wall-clock minute: start well inside one so the four requests share it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 58_000) await new Promise((resolve) => setTimeout(resolve, 60_050 - intoMinute));
    const statuses: number[] = [];
    let last: request.Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await request(limited.app).get('/api/v1/bots').set(limitedOrg.auth('read'));
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(last!.body.error.code).toBe('rate_limited');
    expect(last!.body.error.message).toBe('Rate limit of 3 requests per minute exceeded for this API key');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(last!.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another key of the same organization does not raise the organization's budget: the
    // organization has spent its 3 too.
    const otherKey = await request(limited.app).get('/api/v1/bots').set(limitedOrg.auth('write'));
    expect(otherKey.status).toBe(429);
    expect(otherKey.body.error.message).toBe(
      'Rate limit of 3 requests per minute exceeded for this organization (all its API keys together)',
    );
    expect(otherKey.body.error.details).toMatchObject({ limit: 'organization', perMinute: 3 });
    // Another organization has budgets of its own; public routes are not limited.
    const otherOrg = await limited.newOrg();
    expect((await request(limited.app).get('/api/v1/bots').set(otherOrg.auth('read'))).status).toBe(200);
    expect((await request(limited.app).get('/healthz')).status).toBe(200);
  });
});
