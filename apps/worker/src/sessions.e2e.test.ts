import { type RoleHandle } from '@botfleet/core';
import { createLogger } from '@botfleet/io';
import { MASK_COLOUR, pngColoursIn, createTestBrowserHost } from '@botfleet/runner/testing';
import { startReceiver, testRedisUrl, waitUntil, type TestReceiver } from '@botfleet/testkit';
import IORedis from 'ioredis';
import { Writable } from 'node:stream';
import request from 'supertest';
import { createE2eHarness, startLoginSite, type E2eHarness, type LoginSite } from './testing';

/*
 * Sessions and credentials end to end (docs/sessions.md), through the API and a real
 * worker in Chromium, against a loopback site with a password form, a TOTP second factor and a
 * session cookie: a bot logs in by itself with a credential and saves its profile, the next run
 * starts logged in, runs sharing a profile take turns without holding a worker slot, and no
 * secret (password, TOTP secret, session cookie) ends up in anything botfleet stores or returns.
 */

const logLines: string[] = [];
const responses: string[] = [];
let h: E2eHarness;
let site: LoginSite;
let hooks: TestReceiver;
let delivery: RoleHandle;

beforeAll(async () => {
  site = await startLoginSite();
  hooks = await startReceiver();
  const logger = createLogger({
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  h = await createE2eHarness({ concurrency: 2, logger });
  delivery = await h.startDelivery();
}, 60_000);
afterAll(async () => {
  await delivery?.stop();
  await h?.close();
  await site?.close();
  await hooks?.close();
});

/** Every response body the test reads goes through here, so the leak search sees it. */
async function call(test: request.Test, status: number): Promise<Record<string, unknown>> {
  const res = await test;
  responses.push(res.text);
  if (res.status !== status) throw new Error(`${res.status} ${res.text}`);
  return res.body as Record<string, unknown>;
}
const api = () => request(h.api.app);
const as = (permission: 'read' | 'write' | 'admin') => h.org.auth(permission);

async function createCredential(body: object): Promise<string> {
  const origins = [site.origin];
  return (
    await call(
      api()
        .post('/api/v1/credentials')
        .set(as('write'))
        .send({ origins, ...body }),
      201,
    )
  ).id as string;
}
async function createProfile(name: string): Promise<string> {
  return (await call(api().post('/api/v1/profiles').set(as('write')).send({ name }), 201)).id as string;
}
const getProfile = (id: string) => call(api().get(`/api/v1/profiles/${id}`).set(as('read')), 200);

const ALL_EVENTS = ['execution.completed', 'execution.failed', 'execution.cancelled', 'data.changed'];

async function createBot(targetPath: string, session: object, steps: object[]): Promise<string> {
  return h.createBot({
    targetUrl: site.url(targetPath),
    manifest: { session, webhook: { url: hooks.url, events: ALL_EVENTS, envelope: true } },
    steps,
  });
}

/** Runs the bot once and returns the final execution view (and records what the API answered). */
async function runOnce(botId: string) {
  const executionId = await h.trigger(botId);
  const view = await h.waitForFinal(executionId, 60_000);
  responses.push(JSON.stringify(view));
  return { executionId, view };
}

async function readEverythingOf(executionId: string): Promise<void> {
  for (const path of ['', '/steps', '/logs', '/extract', '/failure', '/deliveries', '/artifacts'])
    responses.push((await api().get(`/api/v1/executions/${executionId}${path}`).set(as('read'))).text);
}

const loginSteps = (credential: string) => [
  { action: 'fill', selector: '#username', value: { credential, field: 'username' } },
  { action: 'screenshot' },
  { action: 'fill', selector: '#password', value: { credential, field: 'password' } },
  { action: 'click', selector: '#sign-in' },
  { action: 'fill', selector: '#code', value: { credential, field: 'totp' } },
  { action: 'click', selector: '#verify' },
  { action: 'waitFor', selector: '#welcome' },
  { action: 'extract', name: 'welcome', selector: '#welcome' },
];
const appSteps = [
  { action: 'waitFor', selector: '#welcome' },
  { action: 'extract', name: 'welcome', selector: '#welcome' },
];

const executionIds: string[] = [];
let loginProfile: string;
let credential: string;

describe('a bot that logs in with 2FA by itself and stays logged in', () => {
  beforeAll(async () => {
    credential = await createCredential({
      name: 'site login',
      username: site.username,
      password: site.password,
      otpauthUri: `otpauth://totp/Site:${encodeURIComponent(site.username)}?secret=${site.totpSecret}&issuer=Site`,
    });
    loginProfile = await createProfile('site session');
  });

  it('logs in with the password and the current TOTP code, and saves the profile', async () => {
    const botId = await createBot('/login', { profileId: loginProfile }, loginSteps(credential));
    const { executionId, view } = await runOnce(botId);
    executionIds.push(executionId);
    expect(view.status).toBe('completed');
    const extract = await call(api().get(`/api/v1/executions/${executionId}/extract`).set(as('read')), 200);
    expect(extract.data).toEqual({ welcome: `Welcome ${site.username}` });
    expect(site.formPosts().map((p) => p.path)).toEqual(['/login', '/otp']);

    const profile = await getProfile(loginProfile);
    expect(profile).toMatchObject({ version: 1, lastExecutionId: executionId });
    // Cookies belong to a host, not to a port: the session cookie shows under the host's origin.
    expect(profile.origins).toEqual([
      { origin: 'http://127.0.0.1', cookies: 1, localStorageKeys: 0, indexedDBDatabases: 0 },
    ]);

    // An admin exports what the run saved, in Playwright's format (the one place values come back).
    const exported = await api().get(`/api/v1/profiles/${loginProfile}/state`).set(as('admin'));
    expect(exported.status).toBe(200);
    expect(exported.body.cookies).toEqual([
      expect.objectContaining({ name: 'session', domain: '127.0.0.1', httpOnly: true, value: site.sessionTokens[0] }),
    ]);

    // The username field was masked in the run's screenshot.
    const artifacts = await call(api().get(`/api/v1/executions/${executionId}/artifacts`).set(as('read')), 200);
    const shot = (artifacts.data as { kind: string; url: string }[]).find((a) => a.kind === 'screenshot');
    const png = (await h.download(shot!.url)).body;
    const host = createTestBrowserHost();
    try {
      expect(await pngColoursIn(host, png, site.usernameBox)).toEqual([MASK_COLOUR]);
    } finally {
      await host.close();
    }
  });

  it('starts the next run logged in, without touching the form', async () => {
    const botId = await createBot('/app', { profileId: loginProfile }, appSteps);
    const posts = site.formPosts().length;
    const { executionId, view } = await runOnce(botId);
    executionIds.push(executionId);
    expect(view.status).toBe('completed');
    expect(site.formPosts()).toHaveLength(posts);
    expect((await getProfile(loginProfile)).version).toBe(2);
  });

  it('leaves the profile as it was with persist "never"', async () => {
    const botId = await createBot('/app', { profileId: loginProfile, persist: 'never' }, appSteps);
    const before = await getProfile(loginProfile);
    const { executionId, view } = await runOnce(botId);
    executionIds.push(executionId);
    expect(view.status).toBe('completed');
    const after = await getProfile(loginProfile);
    expect(after.version).toBe(before.version);
    expect(after.lastExecutionId).toBe(before.lastExecutionId);
  });

  it('fails the step after a wrong TOTP secret with a clear error that holds no secret', async () => {
    const wrongSecret = 'MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43U';
    const wrong = await createCredential({
      name: 'wrong second factor',
      username: site.username,
      password: site.password,
      totpSecret: wrongSecret,
    });
    const profileId = await createProfile('wrong 2fa');
    const botId = await createBot('/login', { profileId }, [
      ...loginSteps(wrong).slice(0, 6),
      { action: 'waitFor', selector: '#welcome', timeout: 2_000 },
    ]);
    const { executionId, view } = await runOnce(botId);
    executionIds.push(executionId);
    expect(view.status).toBe('failed');
    const failure = await call(api().get(`/api/v1/executions/${executionId}/failure`).set(as('read')), 200);
    expect(failure.error).toMatch(/Step 7 \(waitFor "#welcome"\) failed/);
    expect(JSON.stringify(failure)).not.toContain(wrongSecret);
    expect(JSON.stringify(failure)).not.toContain(site.password);
    // onSuccess: a failed run saves nothing.
    expect((await getProfile(profileId)).version).toBe(0);
  });

  it('fails the first fill from a credential stored before origins existed, saying an admin must set them', async () => {
    const old = await createCredential({
      name: 'stored before origins',
      username: site.username,
      password: site.password,
    });
    // As the migration leaves a credential created before it.
    await h.api.db.credential.update({ where: { id: old }, data: { origins: [] } });
    const botId = await createBot('/login', { persist: 'never', profileId: await createProfile('old login') }, [
      ...loginSteps(old).slice(0, 3),
    ]);
    const { executionId, view } = await runOnce(botId);
    executionIds.push(executionId);
    expect(view.status).toBe('failed');
    const failure = await call(api().get(`/api/v1/executions/${executionId}/failure`).set(as('read')), 200);
    expect(failure.error).toContain(
      `Step 1 (fill "#username") failed: credential_origin_mismatch: credential ${old} has no origins`,
    );
    expect(failure.error).toContain('an admin key must set its origins first');
  });
});

describe('runs sharing a profile', () => {
  it('take turns in order, each seeing the one before, while another bot’s runs use the free slots', async () => {
    const profileId = await createProfile('counter');
    const counterBot = await createBot('/counter', { profileId }, [
      { action: 'waitFor', selector: '#idb-visits-done' },
      { action: 'extract', name: 'visits', selector: '#visits' },
      { action: 'extract', name: 'idb', selector: '#idb-visits-done' },
    ]);
    const otherBot = await h.createBot({
      targetUrl: site.url('/counter'),
      steps: [{ action: 'waitFor', ms: 1_500 }],
    });
    const shared = await Promise.all(Array.from({ length: 5 }, () => h.trigger(counterBot)));
    const others = await Promise.all(Array.from({ length: 3 }, () => h.trigger(otherBot)));
    const views = await Promise.all([...shared, ...others].map((id) => h.waitForFinal(id, 120_000)));
    executionIds.push(...shared);
    expect(views.map((v) => v.status)).toEqual(Array(8).fill('completed'));

    const runs = await Promise.all(
      shared.map(async (id) => {
        const view = await call(api().get(`/api/v1/executions/${id}`).set(as('read')), 200);
        const data = (await call(api().get(`/api/v1/executions/${id}/extract`).set(as('read')), 200)).data;
        return { startedAt: view.startedAt as number, completedAt: view.completedAt as number, data };
      }),
    );
    runs.sort((a, b) => a.startedAt - b.startedAt);
    // One at a time, each starting from what the one before saved (localStorage and IndexedDB).
    expect(runs.map((r) => r.data)).toEqual([1, 2, 3, 4, 5].map((n) => ({ visits: String(n), idb: String(n) })));
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.startedAt).toBeGreaterThanOrEqual(runs[i - 1]!.completedAt);
    expect((await getProfile(profileId)).version).toBe(5);

    // The other bot did not queue behind the profile's turns: its runs started while they went on.
    const otherStarts = await Promise.all(
      others.map(
        async (id) => (await call(api().get(`/api/v1/executions/${id}`).set(as('read')), 200)).startedAt as number,
      ),
    );
    expect(Math.min(...otherStarts)).toBeLessThan(runs[runs.length - 1]!.startedAt);
  }, 180_000);
});

describe('nothing leaks', () => {
  it('keeps the password, the TOTP secret and the session cookies out of every stored and returned byte', async () => {
    for (const id of executionIds) await readEverythingOf(id);
    for (const path of [
      '/api/v1/credentials',
      `/api/v1/credentials/${credential}`,
      '/api/v1/profiles',
      `/api/v1/profiles/${loginProfile}`,
      `/api/v1/profiles/${loginProfile}/versions`,
    ])
      responses.push((await api().get(path).set(as('admin'))).text);
    // Deliveries went out for every run.
    await waitUntil(() => hooks.requests.length >= executionIds.length, { timeoutMs: 30_000 });

    const secrets = [site.password, site.totpSecret, ...site.sessionTokens];
    expect(site.sessionTokens.length).toBeGreaterThan(0);

    const database = await databaseText();
    const redis = await redisText();
    const places: Record<string, string> = {
      database,
      redis,
      logs: logLines.join(''),
      responses: responses.join('\n'),
      deliveries: hooks.requests.map((r) => `${JSON.stringify(r.headers)} ${r.body}`).join('\n'),
    };
    // The search itself works: what must be there is there.
    expect(places.database).toContain(site.username);
    expect(places.logs).toContain('execution finished');
    for (const [place, text] of Object.entries(places))
      for (const secret of secrets) expect({ place, found: text.includes(secret) }).toEqual({ place, found: false });
  });
});

/** Every row of every table, as text (bytea as hex, so a PNG's bytes are searched too). */
async function databaseText(): Promise<string> {
  const tables = await h.api.db.$queryRaw<{ name: string }[]>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`;
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = await h.api.db.$queryRawUnsafe<{ row: string }[]>(`SELECT t::text AS row FROM "${name}" t`);
    parts.push(...rows.map((r) => r.row));
  }
  const artifacts = await h.api.db.artifact.findMany({ select: { data: true } });
  parts.push(...artifacts.flatMap((a) => (a.data === null ? [] : [Buffer.from(a.data).toString('latin1')])));
  return parts.join('\n');
}

/** Every key under the harness's queue prefix with its value, whatever its type. */
async function redisText(): Promise<string> {
  const redis = new IORedis(testRedisUrl());
  try {
    const keys = await redis.keys(`${h.api.queues.prefix}*`);
    const parts: string[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'string'
          ? await redis.get(key)
          : type === 'hash'
            ? await redis.hgetall(key)
            : type === 'list'
              ? await redis.lrange(key, 0, -1)
              : type === 'set'
                ? await redis.smembers(key)
                : type === 'zset'
                  ? await redis.zrange(key, 0, -1, 'WITHSCORES')
                  : type === 'stream'
                    ? await redis.xrange(key, '-', '+')
                    : null;
      parts.push(`${key} ${JSON.stringify(value)}`);
    }
    return parts.join('\n');
  } finally {
    redis.disconnect();
  }
}
