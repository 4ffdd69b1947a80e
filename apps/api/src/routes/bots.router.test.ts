import { findStoredManifest } from '@botfleet/db';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

const createBot = (body: object, o: TestOrg = org) =>
  request(h.app).post('/api/v1/bots').set(o.auth('write')).send(body);

describe('POST /api/v1/bots', () => {
  it('creates a bot and returns its detail, field by field', async () => {
    const before = Date.now();
    const res = await createBot({
      name: 'Prices',
      targetUrl: 'https://shop.example/items',
      description: 'daily prices',
      tags: ['shop', 'daily'],
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/bots/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^bot_/),
      name: 'Prices',
      targetUrl: 'https://shop.example/items',
      kind: 'extraction',
      status: 'active',
      tags: ['shop', 'daily'],
      description: 'daily prices',
      retry: { attempts: 0, delaySeconds: 0 },
      version: 1,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      lastRunAt: null,
      lastExecution: null,
      schedule: null,
    });
    expect(res.body.createdAt).toBeGreaterThanOrEqual(before - 1000);
    expect(res.body.createdAt).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('defaults kind, tags and description', async () => {
    const res = await createBot({ name: 'Form', targetUrl: 'http://example.com', kind: 'action' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'action', tags: [], description: null });
  });

  it.each([
    ['name missing', { targetUrl: 'https://a.example' }, 'name'],
    ['name empty', { name: '', targetUrl: 'https://a.example' }, 'name'],
    ['name too long', { name: 'x'.repeat(201), targetUrl: 'https://a.example' }, 'name'],
    ['name not a string', { name: 42, targetUrl: 'https://a.example' }, 'name'],
    ['targetUrl missing', { name: 'a' }, 'targetUrl'],
    ['targetUrl relative', { name: 'a', targetUrl: '/path' }, 'targetUrl'],
    ['targetUrl not http', { name: 'a', targetUrl: 'ftp://a.example/x' }, 'targetUrl'],
    ['targetUrl javascript:', { name: 'a', targetUrl: 'javascript:alert(1)' }, 'targetUrl'],
    ['kind unknown', { name: 'a', targetUrl: 'https://a.example', kind: 'crawler' }, 'kind'],
    ['tags not an array', { name: 'a', targetUrl: 'https://a.example', tags: 'x' }, 'tags'],
    ['tag empty', { name: 'a', targetUrl: 'https://a.example', tags: [''] }, 'tags.0'],
    ['tag too long', { name: 'a', targetUrl: 'https://a.example', tags: ['x'.repeat(65)] }, 'tags.0'],
    [
      'too many tags',
      { name: 'a', targetUrl: 'https://a.example', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) },
      'tags',
    ],
    [
      'description too long',
      { name: 'a', targetUrl: 'https://a.example', description: 'x'.repeat(2001) },
      'description',
    ],
    ['unknown field', { name: 'a', targetUrl: 'https://a.example', owner: 'me' }, 'owner'],
    ['status on create', { name: 'a', targetUrl: 'https://a.example', status: 'paused' }, 'status'],
  ])('rejects %s with a 400 naming the field', async (_case, body, field) => {
    const res = await createBot(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});

describe('GET /api/v1/bots', () => {
  it('pages newest first without repeating or skipping while bots are inserted between pages', async () => {
    const own = await h.newOrg();
    const created: string[] = [];
    for (let i = 0; i < 7; i++)
      created.push((await createBot({ name: `b${i}`, targetUrl: 'https://a.example' }, own)).body.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(h.app)
        .get('/api/v1/bots')
        .query(cursor ? { limit: 3, cursor } : { limit: 3 })
        .set(own.auth('read'));
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(3);
      for (const bot of res.body.data)
        expect(Object.keys(bot).sort()).toEqual([
          'createdAt',
          'id',
          'kind',
          'lastExecution',
          'lastRunAt',
          'name',
          'schedule',
          'status',
          'tags',
          'targetUrl',
        ]);
      seen.push(...res.body.data.map((b: { id: string }) => b.id));
      cursor = res.body.nextCursor;
      pages++;
      // New bots arrive while the client is paging: they are newer than the cursor, so they never
      // show up on later pages and never push an old bot onto a second page.
      await createBot({ name: `late${pages}`, targetUrl: 'https://a.example' }, own);
    } while (cursor);

    expect(pages).toBe(3);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 20 items and only lists the caller’s organization', async () => {
    const own = await h.newOrg();
    await createBot({ name: 'mine', targetUrl: 'https://a.example' }, own);
    const res = await request(h.app).get('/api/v1/bots').set(own.auth('read'));
    expect(res.status).toBe(200);
    expect(res.body.data.map((b: { name: string }) => b.name)).toEqual(['mine']);
    expect(res.body.nextCursor).toBeNull();
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: 2.5 }, 'limit'],
    [{ cursor: 'not-a-cursor' }, 'cursor'],
    [{ cursor: Buffer.from('[1]').toString('base64url') }, 'cursor'],
    [{ page: 2 }, 'page'],
  ])('rejects bad query %j', async (query, field) => {
    const res = await request(h.app).get('/api/v1/bots').query(query).set(org.auth('read'));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});

describe('GET, PATCH and DELETE /api/v1/bots/:botId', () => {
  it('reads, updates and deletes a bot', async () => {
    const { body: bot } = await createBot({ name: 'x', targetUrl: 'https://a.example', description: 'd' });
    const got = await request(h.app).get(`/api/v1/bots/${bot.id}`).set(org.auth('read'));
    expect(got.status).toBe(200);
    expect(got.body).toEqual(bot);

    const patched = await request(h.app)
      .patch(`/api/v1/bots/${bot.id}`)
      .set(org.auth('write'))
      .send({ name: 'y', status: 'paused', tags: ['t'], description: null, targetUrl: 'http://b.example/' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: bot.id,
      name: 'y',
      status: 'paused',
      tags: ['t'],
      description: null,
      targetUrl: 'http://b.example/',
      kind: 'extraction',
      createdAt: bot.createdAt,
    });
    expect(patched.body.updatedAt).toBeGreaterThanOrEqual(bot.updatedAt);

    const del = await request(h.app).delete(`/api/v1/bots/${bot.id}`).set(org.auth('write'));
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await request(h.app).get(`/api/v1/bots/${bot.id}`).set(org.auth('read'))).status).toBe(404);
    expect((await request(h.app).delete(`/api/v1/bots/${bot.id}`).set(org.auth('write'))).status).toBe(404);
    expect(await findStoredManifest(h.db, bot.id)).toBeNull();
  });

  it.each([
    [{ status: 'archived' }, 'status'],
    [{ kind: 'action' }, 'kind'],
    [{ name: '' }, 'name'],
    [{ targetUrl: 'nope' }, 'targetUrl'],
    [{ tags: [1] }, 'tags.0'],
  ])('rejects a bad patch %j', async (body, field) => {
    const { body: bot } = await createBot({ name: 'x', targetUrl: 'https://a.example' });
    const res = await request(h.app).patch(`/api/v1/bots/${bot.id}`).set(org.auth('write')).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });

  it('answers 404 for an unknown id', async () => {
    const res = await request(h.app).get('/api/v1/bots/bot_doesnotexist').set(org.auth('read'));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'Bot not found' } });
  });
});

describe('POST /api/v1/bots with a Chrome Recorder recording', () => {
  const RECORDING = {
    title: 'Search the shop',
    steps: [
      { type: 'navigate', url: 'https://shop.example/search' },
      { type: 'change', target: 'main', selectors: [['aria/Search'], ['#q']], value: 'boots' },
      { type: 'keyDown', target: 'main', key: 'Enter' },
      { type: 'keyUp', target: 'main', key: 'Enter', assertedEvents: [{ type: 'navigation' }] },
      { type: 'emulateNetworkConditions', download: 1, upload: 1, latency: 1 },
    ],
  };
  const steps = async (botId: string) =>
    (await request(h.app).get(`/api/v1/bots/${botId}/steps`).set(org.auth('read'))).body.data;

  it('takes the name from the title and the targetUrl from the first navigate, and the steps from the recording', async () => {
    const res = await createBot({ recording: RECORDING, tags: ['recorded'] });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/bots/${res.body.id}`);
    expect(res.body).toMatchObject({
      name: 'Search the shop',
      targetUrl: 'https://shop.example/search',
      kind: 'extraction',
      tags: ['recorded'],
      warnings: [
        { recordingStep: 4, message: "step type 'emulateNetworkConditions' is not supported and was skipped" },
      ],
    });
    expect(await steps(res.body.id)).toEqual([
      { index: 0, action: 'fill', selector: [['aria/Search'], ['#q']], value: 'boots', keystrokes: true },
      { index: 1, action: 'press', key: 'Enter', waitForNavigation: {} },
    ]);
    const scripts = (await request(h.app).get(`/api/v1/bots/${res.body.id}/scripts`).set(org.auth('read'))).body.data;
    expect(scripts).toEqual([expect.objectContaining({ origin: 'generated', active: true })]);
  });

  it('keeps a given name and targetUrl, then the first navigate is a step', async () => {
    const res = await createBot({
      recording: RECORDING,
      name: 'Mine',
      targetUrl: 'https://shop.example/',
      kind: 'action',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Mine', targetUrl: 'https://shop.example/', kind: 'action' });
    expect((await steps(res.body.id))[0]).toEqual({ index: 0, action: 'goto', url: 'https://shop.example/search' });
  });

  it.each([
    [
      'a recording without navigate and no targetUrl',
      { recording: { title: 't', steps: [] } },
      'validation_error',
      'targetUrl',
    ],
    [
      'a first navigate that is not http(s)',
      { recording: { title: 't', steps: [{ type: 'navigate', url: 'chrome://settings' }] } },
      'invalid_recording',
      'steps.0',
    ],
    ['a recording that is not an object', { recording: 'x' }, 'validation_error', 'recording'],
    ['steps not an array', { recording: { title: 't', steps: 'x' } }, 'validation_error', 'recording.steps'],
    [
      'a refused step',
      {
        recording: { title: 't', steps: [{ type: 'customStep', name: 'x', parameters: {} }] },
        targetUrl: 'https://a.example',
      },
      'invalid_recording',
      'steps.0',
    ],
    ['neither a recording nor a name', { targetUrl: 'https://a.example' }, 'validation_error', 'name'],
  ])('refuses %s and creates nothing', async (_case, body, code, path) => {
    const before = (await request(h.app).get('/api/v1/bots?limit=100').set(org.auth('read'))).body.data.length;
    const res = await createBot(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await request(h.app).get('/api/v1/bots?limit=100').set(org.auth('read'))).body.data).toHaveLength(before);
  });

  it('answers 413 for a recording past 5 MiB', async () => {
    const res = await createBot({ recording: { ...RECORDING, padding: 'x'.repeat(5 * 1024 * 1024) } });
    expect(res.status).toBe(413);
  });
});
