import { artifactInRow, createTestExecution, seedProgress } from '@botfleet/db/testing';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/*
 * Write time of contract part 3, section 1: every URL a run may open is http(s) (a goto may also
 * be about:blank or relative); any other scheme is refused where it enters, naming the field. The
 * run-time side (url_not_allowed) is tested against Chromium in the runner.
 */

let h: ApiHarness;
let org: TestOrg;
let other: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});
beforeAll(async () => {
  other = await h.newOrg();
});

const REFUSED: Record<string, string> = {
  'file:': 'file:///etc/passwd',
  'file: (spelled oddly)': ' FILE:///etc/shadow',
  'chrome:': 'chrome://version',
  'view-source:': 'view-source:https://a.example/',
  'data:': 'data:text/html,<script>alert(1)</script>',
  'javascript:': 'javascript:alert(document.cookie)',
  'javascript: (with a tab)': 'java\tscript:alert(1)',
  'blob:': 'blob:https://a.example/3f1c2b6e-1d2f-4a57-9c55-1b0b7f5c2a10',
  'devtools:': 'devtools://devtools/bundled/inspector.html',
  'chrome-extension:': 'chrome-extension://abcdefghijklmnop/page.html',
  'ftp:': 'ftp://files.example/secret',
};
const SCHEMES = Object.keys(REFUSED);

const write = () => org.auth('write');

describe('a bot’s targetUrl', () => {
  it.each(SCHEMES)('refuses a %s URL on create and update, naming the field', async (scheme) => {
    const created = await request(h.app)
      .post('/api/v1/bots')
      .set(write())
      .send({ name: 'x', targetUrl: REFUSED[scheme] });
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({
      code: 'validation_error',
      details: [expect.objectContaining({ path: 'targetUrl' })],
    });

    const botId = await h.newBot(org);
    const updated = await request(h.app)
      .patch(`/api/v1/bots/${botId}`)
      .set(write())
      .send({ targetUrl: REFUSED[scheme] });
    expect(updated.status).toBe(400);
    expect(updated.body.error.details).toEqual([expect.objectContaining({ path: 'targetUrl' })]);
  });
});

describe('goto steps', () => {
  it.each(SCHEMES)('refuses a %s URL, naming the step’s field', async (scheme) => {
    const botId = await h.newBot(org);
    const res = await request(h.app)
      .put(`/api/v1/bots/${botId}/steps`)
      .set(write())
      .send({
        steps: [
          { action: 'goto', url: 'https://a.example/' },
          { action: 'click', selector: '#a' },
          { action: 'goto', url: REFUSED[scheme] },
        ],
      });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ path: 'steps.2.url', message: expect.stringContaining('url_not_allowed') }),
    ]);
    // Nothing was stored.
    const stored = await request(h.app).get(`/api/v1/bots/${botId}/steps`).set(org.auth('read'));
    expect(stored.body.data).toEqual([]);
  });

  it('refuses a template whose literal part already names another scheme', async () => {
    const botId = await h.newBot(org);
    const res = await request(h.app)
      .put(`/api/v1/bots/${botId}/steps`)
      .set(write())
      .send({ steps: [{ action: 'goto', url: 'file:///{{params.path}}' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: 'steps.0.url' })]);
  });

  it('accepts http(s), about:blank, relative URLs and templates judged at trigger time', async () => {
    const botId = await h.newBot(org);
    const steps = [
      { action: 'goto', url: 'about:blank' },
      { action: 'goto', url: 'https://a.example/x' },
      { action: 'goto', url: 'http://a.example:8080/{{params.path}}' },
      { action: 'goto', url: '/next?page=2' },
      { action: 'goto', url: '{{params.url}}' },
    ];
    const res = await request(h.app).put(`/api/v1/bots/${botId}/steps`).set(write()).send({ steps });
    expect(res.status).toBe(200);
  });
});

describe('recording imports', () => {
  const recording = (url: string) => ({
    title: 'Imported',
    steps: [
      {
        type: 'setViewport',
        width: 800,
        height: 600,
        deviceScaleFactor: 1,
        isMobile: false,
        hasTouch: false,
        isLandscape: false,
      },
      { type: 'navigate', url: 'https://shop.example/' },
      { type: 'click', selectors: [['#go']], offsetX: 1, offsetY: 1 },
      { type: 'navigate', url },
    ],
  });

  it.each(SCHEMES)('refuse a navigate step to a %s URL as invalid_recording naming it', async (scheme) => {
    const res = await request(h.app)
      .post('/api/v1/bots')
      .set(write())
      .send({ recording: recording(REFUSED[scheme]!) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_recording');
    expect(res.body.error.details).toEqual([{ path: 'steps.3', message: expect.stringContaining('url_not_allowed') }]);
  });

  it('refuse a first navigate (the default targetUrl) to another scheme the same way', async () => {
    const res = await request(h.app)
      .post('/api/v1/bots')
      .set(write())
      .send({ recording: { title: 'x', steps: [{ type: 'navigate', url: 'file:///etc/passwd' }] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_recording', details: [{ path: 'steps.0' }] });
  });
});

describe('trigger params that end up in a goto URL', () => {
  async function templatedBot(): Promise<string> {
    return h.newBot(
      org,
      {},
      {
        manifest: { parameters: [{ name: 'target', type: 'string' }] },
        steps: [
          { action: 'goto', url: '{{params.target}}' },
          { action: 'extract', name: 'body', selector: 'body' },
        ],
      },
    );
  }

  it.each(SCHEMES)('refuse a %s value on a trigger, a batch and a rerun, naming the param', async (scheme) => {
    const botId = await templatedBot();
    const bad = { target: REFUSED[scheme] };

    const single = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(write()).send({ params: bad });
    expect(single.status).toBe(400);
    expect(single.body.error).toMatchObject({
      code: 'validation_error',
      details: [{ path: 'params.target', message: expect.stringContaining('url_not_allowed') }],
    });

    const batch = await request(h.app)
      .post(`/api/v1/bots/${botId}/executions/batch`)
      .set(write())
      .send({ runs: [{ params: { target: 'https://a.example/' } }, { params: bad }] });
    expect(batch.status).toBe(400);
    expect(batch.body.error).toMatchObject({
      code: 'validation_error',
      details: [{ path: 'runs.1.params.target', message: expect.stringContaining('url_not_allowed') }],
    });

    const good = await request(h.app)
      .post(`/api/v1/bots/${botId}/executions`)
      .set(write())
      .send({ params: { target: 'https://a.example/' } });
    expect(good.status).toBe(202);
    const rerun = await request(h.app)
      .post(`/api/v1/executions/${good.body.executionId}/rerun`)
      .set(write())
      .send({ params: bad });
    expect(rerun.status).toBe(400);
    expect(rerun.body.error.details).toEqual([expect.objectContaining({ path: 'params.target' })]);
  });

  it('accept web URLs and relative paths', async () => {
    const botId = await templatedBot();
    for (const target of ['https://a.example/', 'http://a.example/x', '/relative/path', 'about:blank']) {
      const res = await request(h.app)
        .post(`/api/v1/bots/${botId}/executions`)
        .set(write())
        .send({ params: { target } });
      expect({ target, status: res.status }).toEqual({ target, status: 202 });
    }
  });
});

describe('GET /executions/:id/artifacts', () => {
  it('lists the run’s own artifacts with signed URLs, serving downloads as attachments', async () => {
    const botId = await h.newBot(org);
    const execution = await createTestExecution(h.db, { botId, organizationId: org.id });
    const neighbour = await createTestExecution(h.db, { botId, organizationId: org.id });
    await seedProgress(h.db, execution.id, {
      steps: [],
      logs: [],
      artifacts: [
        artifactInRow('screenshot', 'image/png', Buffer.from('png')),
        artifactInRow('download', 'application/octet-stream', Buffer.from('<html><script>alert(1)</script></html>')),
      ],
    });

    const res = await request(h.app).get(`/api/v1/executions/${execution.id}/artifacts`).set(org.auth('read'));
    expect(res.status).toBe(200);
    const listed = res.body.data as { kind: string; url: string; createdAt: number }[];
    expect(listed).toHaveLength(2);
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'screenshot', contentType: 'image/png', bytes: 3, url: expect.any(String) }),
        expect.objectContaining({ kind: 'download', contentType: 'application/octet-stream', bytes: 38 }),
      ]),
    );
    const download = listed.find((a) => a.kind === 'download')!;
    expect(download.createdAt).toEqual(expect.any(Number));
    const file = await request(h.app).get(new URL(download.url).pathname + new URL(download.url).search);
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/octet-stream');
    expect(file.headers['content-disposition']).toBe('attachment');
    expect(file.headers['x-content-type-options']).toBe('nosniff');

    // Another run of the same bot lists none of them; another organization cannot see the run.
    const neighbours = await request(h.app).get(`/api/v1/executions/${neighbour.id}/artifacts`).set(org.auth('read'));
    expect(neighbours.body).toEqual({ data: [] });
    const foreign = await request(h.app).get(`/api/v1/executions/${execution.id}/artifacts`).set(other.auth('read'));
    expect(foreign.status).toBe(404);
  });
});
