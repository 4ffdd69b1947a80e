import {
  EMPTY_STORAGE_STATE,
  MAX_STORAGE_STATE_BYTES,
  newId,
  StorageStateSchema,
  storageStateValues,
} from '@botfleet/core';
import { findStoredManifest, PROFILE_VERSIONS_KEPT } from '@botfleet/db';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

/** A logged-in browser's state: every value in it is a secret no read may show. */
const STATE = {
  cookies: [
    {
      name: 'sid',
      value: 'cookie-secret-3f9a1c',
      domain: '.shop.example',
      path: '/',
      expires: 1893456000,
      httpOnly: true,
      secure: true,
      sameSite: 'Lax',
    },
    { name: 'theme', value: 'cookie-secret-dark-77', domain: 'shop.example' },
    { name: 'ad', value: 'cookie-secret-tracker-51', domain: 'ads.example', secure: true },
  ],
  origins: [
    {
      origin: 'https://shop.example',
      localStorage: [
        { name: 'token', value: 'storage-secret-eyJhbGciOi' },
        { name: 'cart', value: 'storage-secret-cart-12' },
      ],
      indexedDB: [{ name: 'offline', version: 3, stores: [{ name: 'orders', records: [] }] }],
    },
  ],
};
const SECRETS = storageStateValues(StorageStateSchema.parse(STATE));

const createProfile = (body: object, o: TestOrg = org) =>
  request(h.app).post('/api/v1/profiles').set(o.auth('write')).send(body);
const newProfile = async (name = `profile ${newId('x')}`, o: TestOrg = org): Promise<string> => {
  const res = await createProfile({ name }, o);
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const importState = (profileId: string, state: unknown, o: TestOrg = org) =>
  request(h.app)
    .put(`/api/v1/profiles/${profileId}/state`)
    .set(o.auth('admin'))
    .send(state as object);
const exportState = (profileId: string, o: TestOrg = org) =>
  request(h.app).get(`/api/v1/profiles/${profileId}/state`).set(o.auth('admin'));
const getProfile = (profileId: string, o: TestOrg = org) =>
  request(h.app).get(`/api/v1/profiles/${profileId}`).set(o.auth('read'));

/** Fails naming the secret when a response body carries any cookie or storage value. */
function expectNoSecrets(body: unknown) {
  const json = JSON.stringify(body);
  for (const secret of SECRETS) expect({ secret, found: json.includes(secret) }).toEqual({ secret, found: false });
}

describe('profiles CRUD', () => {
  it('creates an empty profile and shows it field by field', async () => {
    const res = await createProfile({ name: 'Shop account', description: 'the price-watch login' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/profiles/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^prf_/),
      name: 'Shop account',
      description: 'the price-watch login',
      origins: [],
      version: 0,
      lastExecutionId: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const got = await getProfile(res.body.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect((await exportState(res.body.id)).body).toEqual(EMPTY_STORAGE_STATE);
  });

  it('renames, re-describes and clears the description, then deletes', async () => {
    const profileId = await newProfile('to rename');
    const write = org.auth('write');
    const renamed = await request(h.app)
      .patch(`/api/v1/profiles/${profileId}`)
      .set(write)
      .send({ name: 'renamed', description: 'now described' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: profileId, name: 'renamed', description: 'now described' });
    const cleared = await request(h.app).patch(`/api/v1/profiles/${profileId}`).set(write).send({ description: null });
    expect(cleared.body).toMatchObject({ name: 'renamed', description: null });

    expect((await request(h.app).delete(`/api/v1/profiles/${profileId}`).set(write)).status).toBe(204);
    expect((await getProfile(profileId)).status).toBe(404);
    expect((await request(h.app).delete(`/api/v1/profiles/${profileId}`).set(write)).status).toBe(404);
    const patched = await request(h.app).patch(`/api/v1/profiles/${profileId}`).set(write).send({ name: 'ghost' });
    expect(patched.status).toBe(404);
  });

  it('lists newest first with a cursor that neither repeats nor skips', async () => {
    const lister = await h.newOrg();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await newProfile(`listed ${i}`, lister));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string | number> = cursor ? { limit: 2, cursor } : { limit: 2 };
      const page = await request(h.app).get('/api/v1/profiles').query(query).set(lister.auth('read'));
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((p: { id: string }) => p.id));
      cursor = page.body.nextCursor as string | null;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const bad = await request(h.app).get('/api/v1/profiles?cursor=nope').set(lister.auth('read'));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  });

  it('answers 409 for a name the organization already uses, and allows it in another organization', async () => {
    await newProfile('taken');
    const again = await createProfile({ name: 'taken' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining("'taken'") });
    const other = await newProfile('other name');
    const rename = await request(h.app)
      .patch(`/api/v1/profiles/${other}`)
      .set(org.auth('write'))
      .send({ name: 'taken' });
    expect(rename.status).toBe(409);
    expect((await getProfile(other)).body.name).toBe('other name');
    const elsewhere = await h.newOrg();
    expect((await createProfile({ name: 'taken' }, elsewhere)).status).toBe(201);
  });

  it.each([
    ['name missing', {}, 'name'],
    ['name empty', { name: '' }, 'name'],
    ['name too long', { name: 'x'.repeat(201) }, 'name'],
    ['description too long', { name: 'a', description: 'x'.repeat(1001) }, 'description'],
    ['unknown field', { name: 'a', state: {} }, 'state'],
  ])('refuses a profile with %s', async (_case, body, path) => {
    const res = await createProfile(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('needs write to change a profile and admin for its state', async () => {
    const profileId = await newProfile();
    expect((await request(h.app).post('/api/v1/profiles').set(org.auth('read')).send({ name: 'r' })).status).toBe(403);
    const reset = await request(h.app).post(`/api/v1/profiles/${profileId}/reset`).set(org.auth('read'));
    expect(reset.status).toBe(403);
    for (const permission of ['read', 'write'] as const) {
      const exported = await request(h.app).get(`/api/v1/profiles/${profileId}/state`).set(org.auth(permission));
      expect(exported.status).toBe(403);
      expect(exported.body.error.code).toBe('forbidden');
      const imported = await request(h.app)
        .put(`/api/v1/profiles/${profileId}/state`)
        .set(org.auth(permission))
        .send(STATE);
      expect(imported.status).toBe(403);
      expect(imported.body.error.code).toBe('forbidden');
    }
    expect((await getProfile(profileId)).body.version).toBe(0);
  });
});

describe('profile state', () => {
  it('imports a state, shows origins and counts but never a value, and exports it back normalised', async () => {
    const profileId = await newProfile();
    const imported = await importState(profileId, STATE);
    expect(imported.status).toBe(200);
    expectNoSecrets(imported.body);
    expect(imported.body).toMatchObject({ id: profileId, version: 1, lastExecutionId: null });
    expect(imported.body.origins).toEqual([
      { origin: 'https://ads.example', cookies: 1, localStorageKeys: 0, indexedDBDatabases: 0 },
      { origin: 'https://shop.example', cookies: 2, localStorageKeys: 2, indexedDBDatabases: 1 },
    ]);

    const reads = [
      await getProfile(profileId),
      await request(h.app).get('/api/v1/profiles').set(org.auth('read')),
      await request(h.app).get(`/api/v1/profiles/${profileId}/versions`).set(org.auth('read')),
    ];
    for (const res of reads) {
      expect(res.status).toBe(200);
      expectNoSecrets(res.body);
    }
    expect(reads[0]!.body).toEqual(imported.body);

    const exported = await exportState(profileId);
    expect(exported.status).toBe(200);
    expect(exported.body).toEqual(StorageStateSchema.parse(STATE));
    expect(exported.body.cookies[1]).toEqual({
      name: 'theme',
      value: 'cookie-secret-dark-77',
      domain: 'shop.example',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax',
    });

    // Sealed at rest: no value is readable in the stored version.
    const stored = await h.db.profileVersion.findMany({ where: { profileId } });
    expect(stored).toHaveLength(1);
    expectNoSecrets(stored);

    // The exported file imports again as the same state.
    const again = await importState(profileId, exported.body);
    expect(again.body.version).toBe(2);
    expect((await exportState(profileId)).body).toEqual(exported.body);
  });

  it('resets to the empty state as a new version, and lists versions newest first', async () => {
    const profileId = await newProfile();
    await importState(profileId, STATE);
    const reset = await request(h.app).post(`/api/v1/profiles/${profileId}/reset`).set(org.auth('write'));
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ id: profileId, version: 2, origins: [], lastExecutionId: null });
    expect((await exportState(profileId)).body).toEqual(EMPTY_STORAGE_STATE);

    const versions = await request(h.app).get(`/api/v1/profiles/${profileId}/versions`).set(org.auth('read'));
    expect(versions.status).toBe(200);
    expect(versions.body).toEqual({
      data: [
        { version: 2, source: 'reset', executionId: null, origins: [], createdAt: expect.any(Number) },
        {
          version: 1,
          source: 'import',
          executionId: null,
          origins: expect.arrayContaining([expect.objectContaining({ origin: 'https://shop.example', cookies: 2 })]),
          createdAt: expect.any(Number),
        },
      ],
    });
    expectNoSecrets(versions.body);
  });

  it(`keeps the newest ${PROFILE_VERSIONS_KEPT} versions`, async () => {
    const profileId = await newProfile();
    for (let i = 0; i < PROFILE_VERSIONS_KEPT + 2; i++) {
      expect((await request(h.app).post(`/api/v1/profiles/${profileId}/reset`).set(org.auth('write'))).status).toBe(
        200,
      );
    }
    const versions = await request(h.app).get(`/api/v1/profiles/${profileId}/versions`).set(org.auth('read'));
    const numbers = versions.body.data.map((v: { version: number }) => v.version);
    expect(numbers).toHaveLength(PROFILE_VERSIONS_KEPT);
    expect(numbers[0]).toBe(PROFILE_VERSIONS_KEPT + 2);
    expect(numbers).toEqual([...numbers].sort((a: number, b: number) => b - a));
  });

  // Refused states carry values too: the 400 names fields, never echoes one.
  const refusedValue = 'refused-cookie-secret-81c2';
  const cookie = { name: 'sid', value: refusedValue, domain: 'shop.example' };
  it.each([
    ['an array', [], '(root)'],
    ['a string', 'cookies', '(root)'],
    ['cookies not an array', { cookies: {} }, 'cookies'],
    ['a cookie without a domain', { cookies: [{ name: 'sid', value: refusedValue }] }, 'cookies.0.domain'],
    ['a cookie with an unknown field', { cookies: [{ ...cookie, secretKey: 'x' }] }, 'cookies.0.secretKey'],
    ['a cookie with a bad sameSite', { cookies: [{ ...cookie, sameSite: 'Sometimes' }] }, 'cookies.0.sameSite'],
    ['an origin with a path', { origins: [{ origin: 'https://shop.example/account' }] }, 'origins.0.origin'],
    ['a javascript: origin', { origins: [{ origin: 'javascript:alert(1)' }] }, 'origins.0.origin'],
    ['a file: origin', { origins: [{ origin: 'file:///etc/passwd' }] }, 'origins.0.origin'],
    [
      'a localStorage entry without a value',
      { cookies: [cookie], origins: [{ origin: 'https://shop.example', localStorage: [{ name: 'k' }] }] },
      'origins.0.localStorage.0.value',
    ],
    ['an extra top-level key', { cookies: [], origins: [], extra: true }, 'extra'],
  ])('refuses a state that is %s, and changes nothing', async (_case, state, path) => {
    const profileId = await newProfile();
    await importState(profileId, STATE);
    const res = await (typeof state === 'string'
      ? request(h.app)
          .put(`/api/v1/profiles/${profileId}/state`)
          .set(org.auth('admin'))
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(state))
      : importState(profileId, state));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(JSON.stringify(res.body)).not.toContain(refusedValue);
    expect((await getProfile(profileId)).body.version).toBe(1);
    expect((await exportState(profileId)).body).toEqual(StorageStateSchema.parse(STATE));
  });

  it('takes a state of exactly the maximum size and answers 413 with the envelope past it', async () => {
    const profileId = await newProfile();
    const stateOf = (valueBytes: number) => ({
      cookies: [],
      origins: [{ origin: 'https://big.example', localStorage: [{ name: 'blob', value: 'x'.repeat(valueBytes) }] }],
    });
    const overhead = Buffer.byteLength(JSON.stringify(stateOf(0)));
    const largest = await importState(profileId, stateOf(MAX_STORAGE_STATE_BYTES - overhead));
    expect(largest.status).toBe(200);
    expect(largest.body).toMatchObject({ version: 1, origins: [expect.objectContaining({ localStorageKeys: 1 })] });

    // One byte over, as stored: refused by the state's bound.
    const over = await importState(profileId, stateOf(MAX_STORAGE_STATE_BYTES - overhead + 1));
    expect(over.status).toBe(413);
    expect(over.body.error).toMatchObject({ code: 'payload_too_large', message: expect.any(String) });
    // Far over: refused by the body parser, still with the envelope.
    const huge = await importState(profileId, stateOf(3 * MAX_STORAGE_STATE_BYTES));
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
    expect((await getProfile(profileId)).body.version).toBe(1);
    // Other routes keep the API's own limit.
    const patch = await request(h.app)
      .patch(`/api/v1/profiles/${profileId}`)
      .set(org.auth('write'))
      .send({ description: 'x'.repeat(2 * 1024 * 1024) });
    expect(patch.status).toBe(413);
  });
});

describe('other organizations', () => {
  it('answers 404 on every profile route for another organization’s profile and changes nothing', async () => {
    const profileId = await newProfile('private');
    await importState(profileId, STATE);
    const stranger = await h.newOrg();
    const calls = [
      () => request(h.app).get(`/api/v1/profiles/${profileId}`).set(stranger.auth('admin')),
      () => request(h.app).patch(`/api/v1/profiles/${profileId}`).set(stranger.auth('admin')).send({ name: 'mine' }),
      () => request(h.app).delete(`/api/v1/profiles/${profileId}`).set(stranger.auth('admin')),
      () => request(h.app).get(`/api/v1/profiles/${profileId}/versions`).set(stranger.auth('admin')),
      () => request(h.app).get(`/api/v1/profiles/${profileId}/state`).set(stranger.auth('admin')),
      () => request(h.app).put(`/api/v1/profiles/${profileId}/state`).set(stranger.auth('admin')).send(STATE),
      () => request(h.app).post(`/api/v1/profiles/${profileId}/reset`).set(stranger.auth('admin')),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: 'Profile not found' });
      expectNoSecrets(res.body);
    }
    const listed = await request(h.app).get('/api/v1/profiles').set(stranger.auth('read'));
    expect(listed.body).toEqual({ data: [], nextCursor: null });
    expect((await getProfile(profileId)).body).toMatchObject({ name: 'private', version: 1 });
    expect((await exportState(profileId)).body).toEqual(StorageStateSchema.parse(STATE));
  });

  it.each(['prf_nope', 'bot_01kdvdna00q3v6n9r2t8w4y5z7', newId('prf')])('answers 404 for the id %s', async (id) => {
    const res = await request(h.app).get(`/api/v1/profiles/${id}/state`).set(org.auth('admin'));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('manifest session', () => {
  // A profile is attached, and a bot holding one changed, by an admin key only (bot-logins.router.test.ts).
  const putManifest = (botId: string, body: object, o: TestOrg = org) =>
    request(h.app).put(`/api/v1/bots/${botId}/manifest`).set(o.auth('admin')).send(body);
  const getManifest = (botId: string) => request(h.app).get(`/api/v1/bots/${botId}/manifest`).set(org.auth('read'));

  it('sets, keeps, changes and removes the session', async () => {
    const profileId = await newProfile();
    const botId = await h.newBot(org, { name: 'with session' });
    expect((await getManifest(botId)).body.session).toBeNull();

    const set = await putManifest(botId, { session: { profileId } });
    expect(set.status).toBe(200);
    expect(set.body.session).toEqual({ profileId, persist: 'onSuccess' });
    expect((await getManifest(botId)).body.session).toEqual({ profileId, persist: 'onSuccess' });
    expect((await findStoredManifest(h.db, botId))!.session).toEqual({ profileId, persist: 'onSuccess' });

    // Another section leaves it as it is.
    const other = await putManifest(botId, { capabilities: { locale: 'en-US' } });
    expect(other.body.session).toEqual({ profileId, persist: 'onSuccess' });

    const always = await putManifest(botId, { session: { profileId, persist: 'always' } });
    expect(always.body.session).toEqual({ profileId, persist: 'always' });

    const removed = await putManifest(botId, { session: null });
    expect(removed.status).toBe(200);
    expect(removed.body.session).toBeNull();
    expect((await findStoredManifest(h.db, botId))!.session).toBeNull();
  });

  it('answers 404 naming a profile that is not the organization’s, and changes nothing', async () => {
    const profileId = await newProfile();
    const botId = await h.newBot(org, {}, { manifest: { session: { profileId, persist: 'never' } } });
    const stranger = await h.newOrg();
    const foreign = await newProfile('foreign', stranger);
    for (const id of [foreign, newId('prf'), 'prf_nope', 'not-a-profile']) {
      const res = await putManifest(botId, { capabilities: { locale: 'fr-FR' }, session: { profileId: id } });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', message: `Profile '${id}' not found` });
    }
    const kept = await getManifest(botId);
    expect(kept.body.session).toEqual({ profileId, persist: 'never' });
    expect(kept.body.capabilities).toEqual({});
  });

  it.each([
    ['a bad persist value', { profileId: 'prf_x', persist: 'sometimes' }, 'session.persist'],
    ['no profileId', { persist: 'always' }, 'session.profileId'],
    ['an unknown field', { profileId: 'prf_x', state: {} }, 'session.state'],
  ])('refuses a session with %s', async (_case, session, path) => {
    const botId = await h.newBot(org);
    const res = await putManifest(botId, { session });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    expect((await getManifest(botId)).body.session).toBeNull();
  });

  it('refuses to delete a profile a manifest names or a run has, saying which', async () => {
    const profileId = await newProfile();
    const botId = await h.newBot(org, { name: 'uses it' }, { manifest: { session: { profileId } } });
    const write = org.auth('write');
    const named = await request(h.app).delete(`/api/v1/profiles/${profileId}`).set(write);
    expect(named.status).toBe(409);
    expect(named.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(botId),
      details: { botIds: [botId], activeExecutions: 0 },
    });

    // A pending run keeps it too, once no manifest names it.
    const run = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(write).send({});
    expect(run.status).toBe(202);
    await putManifest(botId, { session: null });
    const running = await request(h.app).delete(`/api/v1/profiles/${profileId}`).set(write);
    expect(running.status).toBe(409);
    expect(running.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('1 run of it is pending or running'),
      details: { botIds: [], activeExecutions: 1 },
    });

    const executionId = run.body.executionId as string;
    expect((await request(h.app).post(`/api/v1/executions/${executionId}/cancel`).set(write)).status).toBe(200);
    expect((await request(h.app).delete(`/api/v1/profiles/${profileId}`).set(write)).status).toBe(204);
    expect((await getProfile(profileId)).status).toBe(404);
  });
});
