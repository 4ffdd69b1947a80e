import type { Permission } from '@botfleet/core';
import { findBotVersion, findStoredManifest } from '@botfleet/db';
import { startReceiver, type TestReceiver } from '@botfleet/testkit';
import { signPayload } from '@botfleet/webhooks';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/*
 * Bot versions (docs/bot-versions.md): every change of steps, scripts or manifest is a version;
 * runs record the version they were triggered with; a version shows masked and restores exactly.
 */

let h: ApiHarness;
let org: TestOrg;
let other: TestOrg;
let receiver: TestReceiver;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});
beforeAll(async () => {
  other = await h.newOrg();
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const SECRET = 'restore-me-exactly';
const goto = (url: string) => ({ action: 'goto', url });
const api = (as: TestOrg = org) => ({
  get: (path: string, permission: 'read' | 'write' = 'read') =>
    request(h.app).get(`/api/v1${path}`).set(as.auth(permission)),
  put: (path: string, body: object, permission: Permission = 'write') =>
    request(h.app).put(`/api/v1${path}`).set(as.auth(permission)).send(body),
  post: (path: string, body: object = {}, permission: Permission = 'write') =>
    request(h.app).post(`/api/v1${path}`).set(as.auth(permission)).send(body),
  del: (path: string) => request(h.app).delete(`/api/v1${path}`).set(as.auth('write')),
});

/** A bot whose version 2 has a signed webhook (with a token in its URL) and two steps, and version 3 neither. */
async function botWithHistory() {
  const botId = await h.newBot(org);
  const hook = `${receiver.url}/hook?token=t0ken`;
  expect(
    (
      await api().put(`/bots/${botId}/manifest`, {
        capabilities: { timeout: 30 },
        webhook: { url: hook, auth: 'hmac', secret: SECRET },
      })
    ).status,
  ).toBe(200);
  expect((await api().put(`/bots/${botId}/steps`, { steps: [goto('https://a.example/1')] })).status).toBe(200);
  expect((await api().put(`/bots/${botId}/manifest`, { webhook: null, capabilities: {} })).status).toBe(200);
  return { botId, hook };
}

describe('GET /bots/:botId/versions', () => {
  it('lists the versions newest first with what each changed, a page at a time', async () => {
    const { botId } = await botWithHistory();
    expect((await api().get(`/bots/${botId}`)).body.version).toBe(4);
    const first = await api().get(`/bots/${botId}/versions?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([
      {
        version: 4,
        createdAt: expect.any(Number),
        changes: ['manifest'],
        restoredFrom: null,
        current: true,
        summary: {
          steps: { before: 1, after: 1 },
          scripts: { before: 1, after: 1 },
          manifestSections: ['capabilities', 'webhook'],
        },
      },
      expect.objectContaining({
        version: 3,
        changes: ['steps', 'scripts'],
        current: false,
        summary: { steps: { before: 0, after: 1 }, scripts: { before: 0, after: 1 }, manifestSections: [] },
      }),
    ]);
    const rest = await api().get(`/bots/${botId}/versions?limit=2&cursor=${first.body.nextCursor}`);
    expect(rest.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(rest.body.data[1]).toMatchObject({ changes: [], summary: { steps: { before: null, after: 0 } } });
    expect(rest.body.nextCursor).toBeNull();
  });

  it('refuses a cursor it did not give (400) and hides other organizations’ bots (404)', async () => {
    const { botId } = await botWithHistory();
    const bad = await api().get(`/bots/${botId}/versions?cursor=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
    expect((await api(other).get(`/bots/${botId}/versions`)).status).toBe(404);
  });
});

describe('GET /bots/:botId/versions/:version', () => {
  it('shows the version’s steps, scripts and manifest with secrets masked as GET manifest masks them', async () => {
    const { botId, hook } = await botWithHistory();
    const asWrite = await api().get(`/bots/${botId}/versions/2`, 'write');
    expect(asWrite.status).toBe(200);
    expect(asWrite.body).toMatchObject({
      botId,
      version: 2,
      changes: ['manifest'],
      current: false,
      steps: [],
      scripts: [],
      manifest: { capabilities: { timeout: 30 }, webhook: { url: hook, auth: 'hmac', secret: '********' } },
    });
    const asRead = await api().get(`/bots/${botId}/versions/2`);
    expect(asRead.body.manifest.webhook.url).toBe(`${receiver.url}/hook?token=********`);
    expect(JSON.stringify(asRead.body)).not.toContain(SECRET);
    const v3 = await api().get(`/bots/${botId}/versions/3`);
    expect(v3.body.steps).toEqual([{ index: 0, ...goto('https://a.example/1') }]);
    expect(v3.body.scripts).toEqual([
      expect.objectContaining({ origin: 'generated', active: true, language: 'javascript' }),
    ]);
  });

  it.each([
    ['abc', 400],
    ['0', 400],
    ['1.5', 400],
    ['99', 404],
  ])('version %s answers %i with the envelope', async (version, status) => {
    const { botId } = await botWithHistory();
    const res = await api().get(`/bots/${botId}/versions/${version}`);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(status === 400 ? 'validation_error' : 'not_found');
  });

  it('answers 404 for another organization’s bot', async () => {
    const { botId } = await botWithHistory();
    expect((await api(other).get(`/bots/${botId}/versions/1`)).status).toBe(404);
  });
});

describe('POST /bots/:botId/versions/:version/restore', () => {
  it('brings back the exact steps and manifest as a new version; the secret, still masked, still signs', async () => {
    const { botId, hook } = await botWithHistory();
    expect((await api().put(`/bots/${botId}/steps`, { steps: [goto('https://a.example/2')] })).status).toBe(200);
    const sealed = (await findBotVersion(h.db, botId, 2))!.manifest.webhookSecretEnc;

    const res = await api().post(`/bots/${botId}/versions/2/restore`);
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/bots/${botId}/versions/6`);
    expect(res.body).toMatchObject({
      version: 6,
      restoredFrom: 2,
      current: true,
      changes: ['steps', 'scripts', 'manifest'],
    });
    expect(res.body.manifest.webhook.secret).toBe('********');
    expect((await api().get(`/bots/${botId}`)).body.version).toBe(6);
    expect((await api().get(`/bots/${botId}/steps`)).body.data).toEqual([]);
    const manifest = await api().get(`/bots/${botId}/manifest`, 'write');
    expect(manifest.body).toMatchObject({ capabilities: { timeout: 30 }, webhook: { url: hook, secret: '********' } });
    expect((await findStoredManifest(h.db, botId))!.webhookSecretEnc).toBe(sealed);

    const sent = await api().post(`/bots/${botId}/webhook/test`);
    expect(sent.body).toMatchObject({ delivered: true });
    const delivered = receiver.requests.at(-1)!;
    const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = delivered.headers;
    expect(signature).toBe(
      signPayload({ id: String(id), timestamp: Number(timestamp), body: delivered.body, secret: SECRET }),
    );

    // Restoring what is current already makes no version.
    const again = await api().post(`/bots/${botId}/versions/6/restore`);
    expect(again.status).toBe(200);
    expect(again.body.version).toBe(6);
    expect((await api().get(`/bots/${botId}`)).body.version).toBe(6);
  });

  it('needs a write key, and answers 404 for an unknown version or another organization’s bot', async () => {
    const { botId } = await botWithHistory();
    expect((await api().post(`/bots/${botId}/versions/1/restore`, {}, 'read')).status).toBe(403);
    expect((await api().post(`/bots/${botId}/versions/99/restore`)).status).toBe(404);
    expect((await api().post(`/bots/${botId}/versions/x/restore`)).status).toBe(400);
    expect((await api(other).post(`/bots/${botId}/versions/1/restore`)).status).toBe(404);
    expect((await api().get(`/bots/${botId}`)).body.version).toBe(4);
  });

  it('refuses (409, naming it) a version whose profile was deleted since, and changes nothing', async () => {
    const botId = await h.newBot(org);
    const profile = await api().post('/profiles', { name: `gone-${botId}` });
    expect(profile.status).toBe(201);
    const profileId = profile.body.id as string;
    // Attaching a profile, and changing a bot that has one, take an admin key (bot-logins.router.test.ts).
    await api().put(`/bots/${botId}/manifest`, { session: { profileId } }, 'admin');
    await api().put(`/bots/${botId}/manifest`, { session: null }, 'admin');
    expect((await api().del(`/profiles/${profileId}`)).status).toBe(204);

    const res = await api().post(`/bots/${botId}/versions/2/restore`, {}, 'admin');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(profileId),
      details: [expect.objectContaining({ path: 'manifest.session.profileId' })],
    });
    expect((await api().get(`/bots/${botId}`)).body.version).toBe(3);
  });

  it('refuses (409, naming it) a version whose steps fill from a credential deleted since', async () => {
    const botId = await h.newBot(org);
    const credential = await api().post('/credentials', {
      name: `gone-${botId}`,
      username: 'u',
      password: 'p4ssword',
      origins: ['https://a.example'],
    });
    expect(credential.status).toBe(201);
    const credentialId = credential.body.id as string;
    const fill = { action: 'fill', selector: '#user', value: { credential: credentialId, field: 'username' } };
    const steps = (list: object[]) => api().put(`/bots/${botId}/steps`, { steps: list }, 'admin');
    expect((await steps([goto('https://a.example/'), fill])).status).toBe(200);
    expect((await steps([goto('https://a.example/')])).status).toBe(200);
    expect((await api().del(`/credentials/${credentialId}`)).status).toBe(204);

    const res = await api().post(`/bots/${botId}/versions/2/restore`, {}, 'admin');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(credentialId),
      details: [{ path: 'steps.1.value', message: expect.stringContaining(credentialId) }],
    });
    expect((await api().get(`/bots/${botId}`)).body.version).toBe(3);
  });
});

describe('the write paths of the API', () => {
  it('a bot from a recording is version 1 with its steps; an import, a script and a no-op PUT follow', async () => {
    const recording = {
      title: 'shop',
      steps: [
        { type: 'navigate', url: 'https://a.example/' },
        { type: 'click', selectors: [['#go']], offsetX: 1, offsetY: 1 },
      ],
    };
    const created = await api().post('/bots', { recording });
    expect(created.status).toBe(201);
    expect(created.body.version).toBe(1);
    const botId = created.body.id as string;
    const v1 = await api().get(`/bots/${botId}/versions/1`);
    expect(v1.body).toMatchObject({ changes: [], current: true });
    expect(v1.body.steps).toEqual([{ index: 0, action: 'click', selector: [['#go']] }]);

    const other = { type: 'click', selectors: [['#other']], offsetX: 1, offsetY: 1 };
    const imported = await api().post(`/bots/${botId}/steps/import`, { ...recording, steps: [other] });
    expect(imported.status).toBe(200);
    const script = await api().post(`/bots/${botId}/scripts`, { name: 's', source: 'export default async () => 1;' });
    expect(script.status).toBe(201);
    // The same steps and manifest again change nothing.
    const steps = (await api().get(`/bots/${botId}/steps`)).body.data;
    expect((await api().put(`/bots/${botId}/steps`, { steps })).status).toBe(200);
    expect((await api().put(`/bots/${botId}/manifest`, { capabilities: {} })).status).toBe(200);

    const listed = await api().get(`/bots/${botId}/versions`);
    expect(listed.body.data.map((v: { version: number; changes: string[] }) => [v.version, v.changes])).toEqual([
      [3, ['scripts']],
      [2, ['steps', 'scripts']],
      [1, []],
    ]);
  });
});

describe('executions record the version they were triggered with', () => {
  it('a run triggered before a change reports the old version; one after, the new', async () => {
    const botId = await h.newBot(org, {}, { steps: [goto('https://a.example/old')] });
    const early = await api().post(`/bots/${botId}/executions`);
    expect(early.status).toBe(202);
    await api().put(`/bots/${botId}/steps`, { steps: [goto('https://a.example/new')] });
    const late = await api().post(`/bots/${botId}/executions`);

    expect((await api().get(`/executions/${early.body.executionId}`)).body.botVersion).toBe(2);
    expect((await api().get(`/executions/${late.body.executionId}`)).body.botVersion).toBe(3);
    const list = await api().get(`/bots/${botId}/executions`);
    expect(list.body.data.map((e: { botVersion: number }) => e.botVersion)).toEqual([3, 2]);
    await api().post(`/bots/${botId}/executions/cancel`);
  });
});
