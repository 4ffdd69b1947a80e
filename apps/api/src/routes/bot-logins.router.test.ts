import type { Permission } from '@botfleet/core';
import { createTestExecution } from '@botfleet/db/testing';
import request from 'supertest';
import { apiRoutes } from '../app';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';
import { botToChange } from './resource-loaders';

/*
 * Who may change a bot that holds a login (docs/sessions.md): a profile in its manifest or a
 * credential its steps fill from. Attaching one, and any change to the steps, scripts, manifest or
 * targetUrl of such a bot, need an admin key; a write key still runs the bot and reads its outputs.
 */

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

let profileId: string;
let credentialId: string;
beforeAll(async () => {
  const profile = await call('post', '/profiles', 'write', { name: 'logged in' });
  expect(profile.status).toBe(201);
  profileId = profile.body.id as string;
  const credential = await call('post', '/credentials', 'write', {
    name: 'login',
    username: 'alice',
    password: 'correct horse battery',
    origins: ['https://a.example'],
  });
  expect(credential.status).toBe(201);
  credentialId = credential.body.id as string;
});

function call(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, as: Permission, body?: object) {
  const req = request(h.app)[method](`/api/v1${path}`).set(org.auth(as));
  return body === undefined ? req : req.send(body);
}

const goto = { action: 'goto', url: 'https://a.example/' };
const fillFromCredential = () => ({
  action: 'fill',
  selector: '#user',
  value: { credential: credentialId, field: 'username' },
});
/** The finding: a script that hands back what the logged-in page holds. */
const READ_THE_SESSION =
  'export default async ({ page }) => page.evaluate(() => btoa(document.cookie + JSON.stringify(localStorage)));';
const recordingOf = (credentials?: object[]) => ({
  title: 'Log in',
  steps: [
    { type: 'navigate', url: 'https://a.example/' },
    { type: 'change', selectors: [['#user']], value: 'typed' },
  ],
  ...(credentials ? { credentials } : {}),
});

type LoginKind = 'profile' | 'credential';

/** A bot that holds a login of this kind (set up with the admin key), with a handwritten script to change. */
async function loggedInBot(kind: LoginKind): Promise<{ botId: string; scriptId: string; login: string }> {
  const botId =
    kind === 'profile'
      ? await h.newBot(org, { name: 'with a profile' }, { manifest: { session: { profileId } }, steps: [goto] })
      : await h.newBot(org, { name: 'with a credential' }, { steps: [goto, fillFromCredential()] });
  const script = await call('post', `/bots/${botId}/scripts`, 'admin', {
    name: 'spare',
    source: 'export default async () => 1;',
  });
  expect(script.status).toBe(201);
  return { botId, scriptId: script.body.id as string, login: kind === 'profile' ? profileId : credentialId };
}

/** Everything a change could touch, as an admin reads it. */
async function definitionOf(botId: string) {
  const [bot, steps, scripts, manifest] = await Promise.all([
    call('get', `/bots/${botId}`, 'admin'),
    call('get', `/bots/${botId}/steps`, 'admin'),
    call('get', `/bots/${botId}/scripts`, 'admin'),
    call('get', `/bots/${botId}/manifest`, 'admin'),
  ]);
  return {
    version: bot.body.version as number,
    targetUrl: bot.body.targetUrl as string,
    steps: steps.body,
    scripts: scripts.body,
    manifest: manifest.body,
  };
}

interface Change {
  name: string;
  send(as: Permission, bot: { botId: string; scriptId: string }): ReturnType<typeof call>;
  /** What an admin key gets for the same change. */
  adminStatus: number;
}

/** Every route that changes what a bot does. */
const CHANGES: Change[] = [
  {
    name: 'PATCH /bots/:botId with a new targetUrl',
    send: (as, { botId }) => call('patch', `/bots/${botId}`, as, { targetUrl: 'https://elsewhere.example/' }),
    adminStatus: 200,
  },
  {
    name: 'PUT /bots/:botId/steps',
    send: (as, { botId }) => call('put', `/bots/${botId}/steps`, as, { steps: [goto] }),
    adminStatus: 200,
  },
  {
    name: 'POST /bots/:botId/steps/import',
    send: (as, { botId }) => call('post', `/bots/${botId}/steps/import`, as, recordingOf()),
    adminStatus: 200,
  },
  {
    name: 'POST /bots/:botId/scripts (the session-reading script of the finding)',
    send: (as, { botId }) =>
      call('post', `/bots/${botId}/scripts`, as, { name: 'read', source: READ_THE_SESSION, active: true }),
    adminStatus: 201,
  },
  {
    name: 'PATCH /bots/:botId/scripts/:scriptId',
    send: (as, { botId, scriptId }) =>
      call('patch', `/bots/${botId}/scripts/${scriptId}`, as, { source: READ_THE_SESSION, active: true }),
    adminStatus: 200,
  },
  {
    name: 'DELETE /bots/:botId/scripts/:scriptId',
    send: (as, { botId, scriptId }) => call('delete', `/bots/${botId}/scripts/${scriptId}`, as),
    adminStatus: 204,
  },
  {
    name: 'PUT /bots/:botId/manifest (a section other than the session)',
    send: (as, { botId }) => call('put', `/bots/${botId}/manifest`, as, { capabilities: { locale: 'de-DE' } }),
    adminStatus: 200,
  },
  {
    name: 'PUT /bots/:botId/manifest removing the session',
    send: (as, { botId }) =>
      call('put', `/bots/${botId}/manifest`, as, { session: null, capabilities: { locale: 'fr-FR' } }),
    adminStatus: 200,
  },
  {
    name: 'POST /bots/:botId/versions/1/restore (the bot as created, without its login)',
    send: (as, { botId }) => call('post', `/bots/${botId}/versions/1/restore`, as),
    adminStatus: 201,
  },
];

it("guards every route that writes a bot's steps, scripts, manifest or versions (a new one included)", () => {
  const definitionWrites = apiRoutes(h.deps)
    .map((route) => route.definition)
    .filter((def) => def.method !== 'get' && /^\/bots\/:botId\/(steps|scripts|manifest|versions)\b/.test(def.path));
  expect(definitionWrites.map((def) => `${def.method} ${def.path}`).sort()).toEqual(
    [
      'delete /bots/:botId/scripts/:scriptId',
      'patch /bots/:botId/scripts/:scriptId',
      'post /bots/:botId/scripts',
      'post /bots/:botId/steps/import',
      'post /bots/:botId/versions/:version/restore',
      'put /bots/:botId/manifest',
      'put /bots/:botId/steps',
    ].sort(),
  );
  for (const def of definitionWrites)
    expect({ route: def.path, loader: def.load?.bot }).toEqual({ route: def.path, loader: botToChange });
});

describe.each<LoginKind>(['profile', 'credential'])('a bot that uses a %s', (kind) => {
  it.each(CHANGES.map((change) => [change.name, change] as const))(
    '%s: 403 for a write key, nothing changed; an admin key may',
    async (_name, change) => {
      const bot = await loggedInBot(kind);
      const before = await definitionOf(bot.botId);

      const refused = await change.send('write', bot);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({
        code: 'forbidden',
        message: `This bot uses ${kind} ${bot.login}; changing it needs an admin key`,
        details: {
          requires: 'admin',
          because: 'bot_uses_login',
          logins:
            kind === 'profile' ? { profileId, credentialIds: [] } : { profileId: null, credentialIds: [bot.login] },
        },
      });
      expect(await definitionOf(bot.botId)).toEqual(before);

      expect((await change.send('admin', bot)).status).toBe(change.adminStatus);
      expect(await definitionOf(bot.botId)).not.toEqual(before);
    },
  );

  it('still lets a write key rename, tag, pause and resume it, and send its targetUrl back unchanged', async () => {
    const { botId } = await loggedInBot(kind);
    const { targetUrl } = await definitionOf(botId);
    const renamed = await call('patch', `/bots/${botId}`, 'write', { name: 'renamed', tags: ['x'], targetUrl });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'renamed', tags: ['x'], targetUrl });
    expect((await call('patch', `/bots/${botId}`, 'write', { status: 'paused' })).status).toBe(200);
    expect((await call('patch', `/bots/${botId}`, 'write', { status: 'active' })).status).toBe(200);
  });

  it('still lets a write key trigger, cancel and rerun it, and read its definition and outputs', async () => {
    const { botId } = await loggedInBot(kind);
    const triggered = await call('post', `/bots/${botId}/executions`, 'write', {});
    expect(triggered.status).toBe(202);
    const cancelled = await call('post', `/executions/${triggered.body.executionId as string}/cancel`, 'write');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');

    const done = await createTestExecution(h.db, {
      botId,
      organizationId: org.id,
      completed: { extractedData: { price: '9.99' } },
    });
    expect((await call('post', `/executions/${done.id}/rerun`, 'write')).status).toBe(202);
    expect((await call('get', `/executions/${done.id}`, 'write')).body.status).toBe('completed');
    expect((await call('get', `/executions/${done.id}/extract`, 'write')).body).toMatchObject({
      data: { price: '9.99' },
    });
    expect((await call('get', `/bots/${botId}/latest-extract`, 'write')).body).toMatchObject({
      data: { price: '9.99' },
    });
    for (const part of ['steps', 'scripts', 'manifest', 'versions']) {
      expect((await call('get', `/bots/${botId}/${part}`, 'write')).status).toBe(200);
    }
  });
});

describe('attaching a login to a bot without one', () => {
  const attachedBy = (kind: LoginKind) =>
    kind === 'profile' ? { profileId, credentialIds: [] } : { profileId: null, credentialIds: [credentialId] };

  it.each<[string, LoginKind, (as: Permission, botId: string) => ReturnType<typeof call>, number]>([
    [
      'PUT /bots/:botId/manifest with a session',
      'profile',
      (as, botId) => call('put', `/bots/${botId}/manifest`, as, { session: { profileId } }),
      200,
    ],
    [
      'PUT /bots/:botId/steps with a fill from a credential',
      'credential',
      (as, botId) => call('put', `/bots/${botId}/steps`, as, { steps: [goto, fillFromCredential()] }),
      200,
    ],
    [
      'POST /bots/:botId/steps/import binding a recorded step to a credential',
      'credential',
      (as, botId) =>
        call(
          'post',
          `/bots/${botId}/steps/import`,
          as,
          recordingOf([{ step: 1, credential: credentialId, field: 'username' }]),
        ),
      200,
    ],
  ])('%s: 403 for a write key, nothing changed; an admin key may', async (_name, kind, attach, adminStatus) => {
    const botId = await h.newBot(org, { name: 'plain' }, { steps: [goto] });
    const before = await definitionOf(botId);
    const refused = await attach('write', botId);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining(`attaching a saved login needs an admin key`),
      details: { requires: 'admin', because: 'change_attaches_login', logins: attachedBy(kind) },
    });
    expect(await definitionOf(botId)).toEqual(before);
    expect((await attach('admin', botId)).status).toBe(adminStatus);
  });

  it('refuses a write key a bot created from a recording that binds a credential, and creates none', async () => {
    const name = `from a recording ${credentialId}`;
    const body = { name, recording: recordingOf([{ step: 1, credential: credentialId, field: 'username' }]) };
    const refused = await call('post', '/bots', 'write', body);
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({
      requires: 'admin',
      because: 'change_attaches_login',
      logins: attachedBy('credential'),
    });
    expect(await h.db.bot.count({ where: { organizationId: org.id, name } })).toBe(0);
    expect((await call('post', '/bots', 'admin', body)).status).toBe(201);
  });

  it('refuses a write key the restore of a version that had a profile', async () => {
    const botId = await h.newBot(org, { name: 'once logged in' });
    expect((await call('put', `/bots/${botId}/manifest`, 'admin', { session: { profileId } })).status).toBe(200);
    expect((await call('put', `/bots/${botId}/manifest`, 'admin', { session: null })).status).toBe(200);
    const refused = await call('post', `/bots/${botId}/versions/2/restore`, 'write');
    expect(refused.status).toBe(403);
    expect(refused.body.error.details).toEqual({
      requires: 'admin',
      because: 'change_attaches_login',
      logins: attachedBy('profile'),
    });
    expect((await definitionOf(botId)).version).toBe(3);
    expect((await call('post', `/bots/${botId}/versions/2/restore`, 'admin')).status).toBe(201);
  });

  it('answers a write key 403 before it learns whether the credential exists', async () => {
    const botId = await h.newBot(org, { name: 'probe' });
    const fill = {
      action: 'fill',
      selector: '#user',
      value: { credential: 'crd_nosuchcredential', field: 'username' },
    };
    expect((await call('put', `/bots/${botId}/steps`, 'write', { steps: [fill] })).status).toBe(403);
    expect((await call('put', `/bots/${botId}/steps`, 'admin', { steps: [fill] })).status).toBe(404);
  });
});

describe('a bot without a login', () => {
  it('is still changed by a write key: targetUrl, steps, scripts, manifest, restore', async () => {
    const botId = await h.newBot(org, { name: 'plain' });
    const write = (method: 'patch' | 'put' | 'post', path: string, body?: object) =>
      call(method, `/bots/${botId}${path}`, 'write', body);
    expect((await write('patch', '', { targetUrl: 'https://b.example/' })).status).toBe(200);
    expect((await write('put', '/steps', { steps: [goto] })).status).toBe(200);
    expect((await write('post', '/steps/import', recordingOf())).status).toBe(200);
    expect((await write('post', '/scripts', { name: 'own', source: 'export default async () => 1;' })).status).toBe(
      201,
    );
    expect((await write('put', '/manifest', { capabilities: { locale: 'de-DE' } })).status).toBe(200);
    expect((await write('post', '/versions/1/restore')).status).toBe(201);
  });
});

it("keeps a profile's state unreadable to a write key (the admin export)", async () => {
  const exported = await call('get', `/profiles/${profileId}/state`, 'write');
  expect(exported.status).toBe(403);
  expect(exported.body.error.code).toBe('forbidden');
  expect((await call('get', `/profiles/${profileId}/state`, 'admin')).status).toBe(200);
});
