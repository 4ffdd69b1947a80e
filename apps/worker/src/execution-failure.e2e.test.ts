import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

let h: E2eHarness;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    '/page': '<!doctype html><body><h1 id="title">Hello</h1><button id="go">go</button></body>',
    '/slow': (_req, res) =>
      void setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>late</p>'), 1_500),
  });
  h = await createE2eHarness();
});
afterAll(async () => {
  await h.close();
  await site.close();
});

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

it('fails on a missing selector with the step index and a screenshot behind a signed URL', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/page'),
    steps: [
      { action: 'extract', name: 'title', selector: '#title' },
      { action: 'click', selector: '#does-not-exist', timeout: 500 },
      { action: 'extract', name: 'never', selector: '#title' },
    ],
  });
  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId);
  expect(execution.status).toBe('failed');

  const failure = (await h.get(`/api/v1/executions/${executionId}/failure`)).body;
  expect(failure).toEqual({
    error: expect.stringContaining('#does-not-exist'),
    screenshotUrl: expect.stringMatching(/^http:\/\/botfleet\.test\/api\/v1\/artifacts\//),
    stepIndex: 1,
  });
  const steps = (await h.get(`/api/v1/executions/${executionId}/steps`)).body.data;
  expect(steps.map((s: { status: string }) => s.status)).toEqual(['completed', 'failed']);
  expect(steps[1].error).toContain('#does-not-exist');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).status).toBe(404);

  // The signed URL serves the PNG without an API key; any change to it is refused.
  const url = new URL(failure.screenshotUrl);
  const png = await request(h.api.app)
    .get(url.pathname + url.search)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
  expect(png.status).toBe(200);
  expect(png.headers['content-type']).toBe('image/png');
  expect((png.body as Buffer).subarray(0, 8)).toEqual(PNG_SIGNATURE);

  const signature = url.searchParams.get('signature')!;
  const altered = new URL(url);
  altered.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
  expect((await request(h.api.app).get(altered.pathname + altered.search)).status).toBe(403);
  const extended = new URL(url);
  extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
  expect((await request(h.api.app).get(extended.pathname + extended.search)).status).toBe(403);
  expect((await request(h.api.app).get(url.pathname)).status).toBe(400);
});

it('fails a run past capabilities.timeout with an error saying so', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/page'),
    manifest: { capabilities: { timeout: 1 } },
    steps: [
      { action: 'waitFor', ms: 60_000 },
      { action: 'extract', name: 'title', selector: '#title' },
    ],
  });
  const started = Date.now();
  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId);
  expect(execution.status).toBe('failed');
  // Far below the 60 s step, with room for a loaded machine.
  expect(Date.now() - started).toBeLessThan(40_000);
  expect((await h.get(`/api/v1/executions/${executionId}/failure`)).body.error).toMatch(/timed out after 1 s/);
});

it('records optional failures as skipped and goes on', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/page'),
    steps: [
      { action: 'click', selector: '#cookie-banner', optional: true, timeout: 300 },
      { action: 'click', selector: '#go' },
      { action: 'extract', name: 'title', selector: '#title' },
    ],
  });
  const executionId = await h.trigger(botId);
  expect((await h.waitForFinal(executionId)).status).toBe('completed');
  const steps = (await h.get(`/api/v1/executions/${executionId}/steps`)).body.data;
  expect(steps.map((s: { status: string }) => s.status)).toEqual(['skipped', 'completed', 'completed']);
  expect(steps[0].error).toContain('#cookie-banner');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body).toEqual({ data: { title: 'Hello' } });
});

it('answers extract with 404 before the execution completed, then with the data', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/slow'),
    steps: [{ action: 'extract', name: 'p', selector: 'p' }],
  });
  const executionId = await h.trigger(botId);
  const early = await h.get(`/api/v1/executions/${executionId}/extract`);
  expect(early.status).toBe(404);
  expect(early.body.error.code).toBe('not_found');
  expect((await h.waitForFinal(executionId)).status).toBe('completed');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body).toEqual({ data: { p: 'late' } });
});

it('pages through a bot’s executions newest first', async () => {
  const botId = await h.createBot({ targetUrl: site.url('/page'), steps: [] });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(await h.trigger(botId));
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const res: request.Response = await h.get(
      `/api/v1/bots/${botId}/executions?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    seen.push(...res.body.data.map((e: { id: string }) => e.id));
    cursor = res.body.nextCursor;
  } while (cursor);
  expect(seen).toEqual([...ids].reverse());
  for (const id of ids) await h.waitForFinal(id);
});

it('cancels a running execution: the run stops and the state stays cancelled', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/page'),
    steps: [
      { action: 'waitFor', ms: 20_000 },
      { action: 'extract', name: 'title', selector: '#title' },
    ],
  });
  const executionId = await h.trigger(botId);
  await waitUntil(async () => (await h.get(`/api/v1/executions/${executionId}`)).body.status === 'running', {
    timeoutMs: 15_000,
  });
  const cancelled = await request(h.api.app).post(`/api/v1/executions/${executionId}/cancel`).set(h.org.auth('write'));
  expect(cancelled.status).toBe(200);
  expect(cancelled.body.status).toBe('cancelled');

  // The worker notices at once (pub/sub) and writes nothing over the cancelled state.
  await waitUntil(
    async () =>
      (await h.get(`/api/v1/executions/${executionId}/logs`)).body.data.some(
        (l: { message: string }) => l.message === 'Execution was cancelled',
      ),
    { timeoutMs: 15_000 },
  );
  const after = (await h.get(`/api/v1/executions/${executionId}`)).body;
  expect(after.status).toBe('cancelled');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).status).toBe(404);

  // The worker is free again.
  const next = await h.createBot({
    targetUrl: site.url('/page'),
    steps: [{ action: 'extract', name: 'title', selector: '#title' }],
  });
  expect((await h.waitForFinal(await h.trigger(next), 10_000)).status).toBe('completed');
});

it('treats a run that extracted nothing as completed without data', async () => {
  const botId = await h.createBot({ targetUrl: site.url('/page'), steps: [{ action: 'click', selector: '#go' }] });
  const executionId = await h.trigger(botId);
  expect((await h.waitForFinal(executionId)).status).toBe('completed');
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).status).toBe(404);
  expect((await h.get(`/api/v1/bots/${botId}/latest-extract`)).status).toBe(404);
  expect((await h.get(`/api/v1/bots/${botId}/latest-execution`)).body).toMatchObject({
    id: executionId,
    status: 'completed',
  });
});
