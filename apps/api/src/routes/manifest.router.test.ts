import { findStoredManifest } from '@botfleet/db';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

const newBot = () => h.newBot(org);
const put = (botId: string, body: object) =>
  request(h.app).put(`/api/v1/bots/${botId}/manifest`).set(org.auth('write')).send(body);
const get = (botId: string) => request(h.app).get(`/api/v1/bots/${botId}/manifest`).set(org.auth('read'));

const capabilities = {
  proxy: false,
  locale: 'fr-FR',
  userAgent: 'botfleet-test/1.0',
  timezone: 'Europe/Paris',
  geolocation: { latitude: 48.85, longitude: 2.35 },
  adBlocking: true,
  resolution: { width: 1280, height: 720 },
  timeout: 30,
};

describe('manifest', () => {
  it('starts empty', async () => {
    const botId = await newBot();
    const res = await get(botId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ capabilities: {}, webhook: null, parameters: [], session: null });
  });

  it('replaces the sections sent and keeps the others', async () => {
    const botId = await newBot();
    const parameters = [{ name: 'query', type: 'string', description: 'search', required: true }];
    expect((await put(botId, { capabilities, parameters })).status).toBe(200);
    const res = await put(botId, { webhook: { url: 'https://hooks.example/in', auth: 'none', dataPath: 'items.0' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      capabilities,
      parameters,
      // The default events are shown although the PUT left them out (contract part 2).
      webhook: { url: 'https://hooks.example/in', auth: 'none', dataPath: 'items.0', events: ['execution.completed'] },
      session: null,
    });
    expect((await get(botId)).body).toEqual(res.body);

    const replaced = await put(botId, { capabilities: { locale: 'en-GB' } });
    expect(replaced.body.capabilities).toEqual({ locale: 'en-GB' });
    expect(replaced.body.parameters).toEqual(parameters);

    const removed = await put(botId, { webhook: null });
    expect(removed.body.webhook).toBeNull();
    expect(removed.body.capabilities).toEqual({ locale: 'en-GB' });
  });

  it('stores the HMAC secret encrypted, masks it, and keeps it when omitted or masked', async () => {
    const botId = await newBot();
    const secret = 'super-secret-hmac-key-123';
    const res = await put(botId, { webhook: { url: 'https://hooks.example/in', auth: 'hmac', secret } });
    expect(res.status).toBe(200);
    expect(res.body.webhook).toEqual({
      url: 'https://hooks.example/in',
      auth: 'hmac',
      secret: '********',
      events: ['execution.completed'],
    });
    expect(JSON.stringify((await get(botId)).body)).not.toContain(secret);

    const row = (await findStoredManifest(h.db, botId))!;
    expect(JSON.stringify(row)).not.toContain(secret);
    expect(row.webhookSecretEnc).toMatch(/^v1\./);
    expect(h.deps.secretBox.decrypt(row.webhookSecretEnc!)).toBe(secret);

    // Omitted and masked secrets keep the stored one; a new one replaces it.
    await put(botId, { webhook: { url: 'https://hooks.example/v2', auth: 'hmac' } });
    await put(botId, { webhook: { url: 'https://hooks.example/v3', auth: 'hmac', secret: '********' } });
    const kept = (await findStoredManifest(h.db, botId))!;
    expect(h.deps.secretBox.decrypt(kept.webhookSecretEnc!)).toBe(secret);
    await put(botId, {
      webhook: { url: 'https://hooks.example/v3', auth: 'hmac', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    });
    const rotated = (await findStoredManifest(h.db, botId))!;
    expect(h.deps.secretBox.decrypt(rotated.webhookSecretEnc!)).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  });

  it('stores the JWT password encrypted and masked', async () => {
    const botId = await newBot();
    const password = 'hunter2-very-secret';
    const webhook = {
      url: 'https://hooks.example/in',
      auth: 'jwt',
      loginUrl: 'https://auth.example/login',
      username: 'bot',
      password,
    };
    const res = await put(botId, { webhook });
    expect(res.status).toBe(200);
    expect(res.body.webhook).toEqual({ ...webhook, password: '********', events: ['execution.completed'] });
    const row = (await findStoredManifest(h.db, botId))!;
    expect(JSON.stringify(row)).not.toContain(password);
    expect(h.deps.secretBox.decrypt(row.webhookPasswordEnc!)).toBe(password);
  });

  it('drops a secret the new auth mode does not use', async () => {
    const botId = await newBot();
    await put(botId, { webhook: { url: 'https://hooks.example/in', auth: 'hmac', secret: 's3cret' } });
    const res = await put(botId, { webhook: { url: 'https://hooks.example/in', auth: 'none' } });
    expect(res.body.webhook).toEqual({
      url: 'https://hooks.example/in',
      auth: 'none',
      events: ['execution.completed'],
    });
    expect((await findStoredManifest(h.db, botId))!.webhookSecretEnc).toBeNull();
  });

  it.each([
    ['locale', { capabilities: { locale: 'english' } }, 'capabilities.locale'],
    ['locale without region', { capabilities: { locale: 'en' } }, 'capabilities.locale'],
    ['timezone', { capabilities: { timezone: 'Mars/Olympus' } }, 'capabilities.timezone'],
    [
      'latitude range',
      { capabilities: { geolocation: { latitude: 91, longitude: 0 } } },
      'capabilities.geolocation.latitude',
    ],
    [
      'longitude range',
      { capabilities: { geolocation: { latitude: 0, longitude: -181 } } },
      'capabilities.geolocation.longitude',
    ],
    [
      'latitude type',
      { capabilities: { geolocation: { latitude: '1', longitude: 0 } } },
      'capabilities.geolocation.latitude',
    ],
    [
      'geolocation missing member',
      { capabilities: { geolocation: { latitude: 1 } } },
      'capabilities.geolocation.longitude',
    ],
    ['width', { capabilities: { resolution: { width: 99, height: 600 } } }, 'capabilities.resolution.width'],
    ['height', { capabilities: { resolution: { width: 800, height: 4321 } } }, 'capabilities.resolution.height'],
    ['width integer', { capabilities: { resolution: { width: 800.5, height: 600 } } }, 'capabilities.resolution.width'],
    // At most 3840x2160 (contract part 3, section 1): a bigger viewport costs the worker gigabytes.
    [
      'width past 3840',
      { capabilities: { resolution: { width: 3841, height: 600 } } },
      'capabilities.resolution.width',
    ],
    [
      'height past 2160',
      { capabilities: { resolution: { width: 800, height: 2161 } } },
      'capabilities.resolution.height',
    ],
    ['timeout low', { capabilities: { timeout: 0 } }, 'capabilities.timeout'],
    ['timeout high', { capabilities: { timeout: 3601 } }, 'capabilities.timeout'],
    ['timeout integer', { capabilities: { timeout: 1.5 } }, 'capabilities.timeout'],
    ['proxy type', { capabilities: { proxy: 'yes' } }, 'capabilities.proxy'],
    ['adBlocking type', { capabilities: { adBlocking: 1 } }, 'capabilities.adBlocking'],
    ['unknown capability', { capabilities: { stealth: true } }, 'capabilities.stealth'],
    ['webhook url', { webhook: { url: 'not a url', auth: 'none' } }, 'webhook.url'],
    ['webhook auth', { webhook: { url: 'https://h.example', auth: 'basic' } }, 'webhook.auth'],
    ['hmac without secret', { webhook: { url: 'https://h.example', auth: 'hmac' } }, 'webhook.secret'],
    [
      'jwt without loginUrl',
      { webhook: { url: 'https://h.example', auth: 'jwt', username: 'u', password: 'p' } },
      'webhook.loginUrl',
    ],
    [
      'jwt without username',
      { webhook: { url: 'https://h.example', auth: 'jwt', loginUrl: 'https://h.example/l', password: 'p' } },
      'webhook.username',
    ],
    [
      'jwt without password',
      { webhook: { url: 'https://h.example', auth: 'jwt', loginUrl: 'https://h.example/l', username: 'u' } },
      'webhook.password',
    ],
    [
      'loginUrl',
      { webhook: { url: 'https://h.example', auth: 'jwt', loginUrl: 'ftp://x', username: 'u', password: 'p' } },
      'webhook.loginUrl',
    ],
    ['dataPath', { webhook: { url: 'https://h.example', auth: 'none', dataPath: 'items..name' } }, 'webhook.dataPath'],
    ['unknown webhook field', { webhook: { url: 'https://h.example', auth: 'none', retries: 3 } }, 'webhook.retries'],
    ['parameter name', { parameters: [{ name: '1abc', type: 'string' }] }, 'parameters.0.name'],
    ['parameter type', { parameters: [{ name: 'q', type: 'date' }] }, 'parameters.0.type'],
    [
      'parameter duplicate',
      {
        parameters: [
          { name: 'q', type: 'string' },
          { name: 'q', type: 'number' },
        ],
      },
      'parameters.1.name',
    ],
    [
      'parameter required type',
      { parameters: [{ name: 'q', type: 'string', required: 'yes' }] },
      'parameters.0.required',
    ],
    ['parameters not an array', { parameters: { q: 'string' } }, 'parameters'],
    ['unknown section', { schedule: {} }, 'schedule'],
  ])('rejects a bad %s with a 400 naming the field', async (_case, body, field) => {
    const botId = await newBot();
    const res = await put(botId, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});
