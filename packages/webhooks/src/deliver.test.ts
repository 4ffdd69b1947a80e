import { randomBytes, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import pino from 'pino';
import { buildDeliveryBody } from '@botfleet/core';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type ReceiverHandler, type TestReceiver } from '@botfleet/testkit';
import { deliverWebhook, type DeliveryLogger, type DeliveryRequest } from './deliver';
import { JwtTokenCache } from './jwt-token-cache';

const SIGNING_KEY = 'login-server-signing-key';
const PASSWORD = 'correct horse battery staple';

// Compile-time check: a pino logger is a DeliveryLogger.
const pinoIsADeliveryLogger: DeliveryLogger = pino({ level: 'silent' });
void pinoIsADeliveryLogger;

function recordingLogger(): DeliveryLogger & { lines: string[] } {
  const lines: string[] = [];
  const record = (fields: Record<string, unknown>, message: string): void => {
    lines.push(JSON.stringify({ ...fields, message }));
  };
  return { lines, info: record, warn: record };
}

describe('deliverWebhook', () => {
  const receivers: TestReceiver[] = [];
  const receiver = async (handler?: ReceiverHandler): Promise<TestReceiver> => {
    const server = await startReceiver(handler);
    receivers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  const base = (url: string): DeliveryRequest => ({
    deliveryId: 'dlv_01HXYZ',
    organizationId: 'org_1',
    botId: 'bot_1',
    executionId: 'exe_1',
    url,
    auth: 'none',
    body: buildDeliveryBody({ items: [{ name: 'Widget', price: 9.5 }] }, 'items.0'),
  });
  const allow = { allowPrivateNetwork: true, timeoutMs: 2_000 };

  it('sends the Standard Webhooks and botfleet headers with an HMAC the reference library verifies', async () => {
    const target = await receiver();
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const logger = recordingLogger();
    const result = await deliverWebhook({ ...base(`${target.url}/hooks`), auth: 'hmac', secret }, { ...allow, logger });

    expect(result).toEqual({
      ok: true,
      statusCode: 200,
      error: null,
      durationMs: expect.any(Number),
      retryAfterMs: null,
    });
    const [received] = target.requests;
    expect(received!.body).toBe('{"name":"Widget","price":9.5}');
    expect(received!.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'dlv_01HXYZ',
      'x-botfleet-event': 'execution.completed',
      'x-botfleet-bot-id': 'bot_1',
      'x-botfleet-execution-id': 'exe_1',
      'user-agent': 'botfleet-webhooks/1',
    });
    expect(Math.abs(Number(received!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    const headers = received!.headers as Record<string, string>;
    expect(new Webhook(secret).verify(received!.body, headers)).toEqual({ name: 'Widget', price: 9.5 });
    expect(() => new Webhook(secret).verify(received!.body.replace('9.5', '0.5'), headers)).toThrow();
    expect(logger.lines.join('\n')).not.toContain(secret.slice(6));
  });

  it('signs with a plain secret as UTF-8 and keeps the given timestamp', async () => {
    const target = await receiver();
    const secret = 'plain-secret-🔑';
    const timestampSeconds = Math.floor(Date.now() / 1000) - 30;
    await deliverWebhook({ ...base(target.url), auth: 'hmac', secret, timestampSeconds }, allow);
    const received = target.requests[0]!;
    expect(received.headers['webhook-timestamp']).toBe(String(timestampSeconds));
    const verifier = new Webhook(Buffer.from(secret, 'utf8').toString('base64'));
    expect(() => verifier.verify(received.body, received.headers as Record<string, string>)).not.toThrow();
  });

  it('sends no signature and no authorization for auth none', async () => {
    const target = await receiver();
    await deliverWebhook(base(target.url), allow);
    expect(target.requests[0]!.headers['webhook-signature']).toBeUndefined();
    expect(target.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('reports a non-2xx answer, including a redirect, as a failed attempt', async () => {
    const failing = await receiver((_req, res) => res.writeHead(500).end('internal error'));
    await expect(deliverWebhook(base(failing.url), allow)).resolves.toEqual({
      ok: false,
      statusCode: 500,
      error: 'receiver answered HTTP 500',
      durationMs: expect.any(Number),
      retryAfterMs: null,
    });
    const internal = await receiver();
    const redirecting = await receiver((_req, res) => res.writeHead(302, { location: internal.url }).end());
    await expect(deliverWebhook(base(redirecting.url), allow)).resolves.toMatchObject({ ok: false, statusCode: 302 });
    expect(internal.connections()).toBe(0);
  });

  it('times out a silent receiver and returns instead of throwing', async () => {
    const silent = await receiver(() => undefined);
    const result = await deliverWebhook(base(silent.url), { allowPrivateNetwork: true, timeoutMs: 150 });
    expect(result).toMatchObject({ ok: false, statusCode: null, error: expect.stringContaining('within 150 ms') });
    expect(result.durationMs).toBeLessThan(10_000); // generous for a loaded machine; silent is forever
  });

  it('refuses a private destination without reaching it, and never leaks the secret', async () => {
    const target = await receiver();
    const secret = 'super-secret-value';
    for (const url of [target.url, `http://localhost:${target.port}/`]) {
      const result = await deliverWebhook({ ...base(url), auth: 'hmac', secret }, { allowPrivateNetwork: false });
      expect(result.ok).toBe(false);
      expect(result.statusCode).toBeNull();
      expect(result.error).toMatch(/^destination_not_allowed: (127\.0\.0\.1|localhost)$/);
      expect(result.error).not.toContain(secret);
    }
    expect(target.connections()).toBe(0);
  });

  it('returns a configuration problem as a failed attempt', async () => {
    const target = await receiver();
    await expect(deliverWebhook({ ...base(target.url), auth: 'hmac' }, allow)).resolves.toMatchObject({
      ok: false,
      error: 'webhook auth is hmac but no secret is configured',
    });
    await expect(
      deliverWebhook({ ...base(target.url), auth: 'jwt' }, { ...allow, tokenCache: new JwtTokenCache() }),
    ).resolves.toMatchObject({
      ok: false,
      error: expect.stringContaining('loginUrl, username or password is missing'),
    });
    expect(target.connections()).toBe(0);
  });

  describe('jwt', () => {
    let logins: number;
    let revoked: Set<string>;
    let rejectAll: boolean;
    let login: TestReceiver;
    let target: TestReceiver;
    let nowMs: number;
    let tokenCache: JwtTokenCache;

    beforeEach(async () => {
      logins = 0;
      revoked = new Set();
      rejectAll = false;
      nowMs = Date.now();
      tokenCache = new JwtTokenCache({ now: () => nowMs });
      login = await receiver((req, res) => {
        const { username, password } = JSON.parse(req.body) as { username: string; password: string };
        if (username !== 'robot' || password !== PASSWORD) return void res.writeHead(401).end();
        logins += 1;
        const token = jwt.sign({ sub: username, jti: randomUUID() }, SIGNING_KEY, { expiresIn: 60 });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token }));
      });
      // Echoes the Authorization header back on failure, as careless servers do.
      target = await receiver((req, res) => {
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        try {
          jwt.verify(token, SIGNING_KEY);
          if (rejectAll || revoked.has(token)) throw new Error('revoked');
          res.writeHead(200).end('ok');
        } catch {
          res.writeHead(401).end(`rejected ${req.headers.authorization ?? ''}`);
        }
      });
    });

    const jwtDelivery = (): DeliveryRequest => ({
      ...base(`${target.url}/hook`),
      auth: 'jwt',
      loginUrl: `${login.url}/login`,
      username: 'robot',
      password: PASSWORD,
    });
    const tokensSeen = (): string[] =>
      target.requests.map((r) => (r.headers.authorization ?? '').replace(/^Bearer /, ''));

    it('logs in once and reuses the token for several deliveries', async () => {
      for (let i = 0; i < 3; i += 1) {
        await expect(deliverWebhook(jwtDelivery(), { ...allow, tokenCache })).resolves.toMatchObject({
          ok: true,
          statusCode: 200,
        });
      }
      expect(logins).toBe(1);
      expect(new Set(tokensSeen()).size).toBe(1);
      expect(target.requests[0]!.headers.authorization).toMatch(/^Bearer ey/);
    });

    it('logs in again once the token has expired', async () => {
      await deliverWebhook(jwtDelivery(), { ...allow, tokenCache });
      nowMs += 61_000;
      await expect(deliverWebhook(jwtDelivery(), { ...allow, tokenCache })).resolves.toMatchObject({ ok: true });
      expect(logins).toBe(2);
      expect(new Set(tokensSeen()).size).toBe(2);
    });

    it('on a 401 logs in again once and retries within the same attempt', async () => {
      await deliverWebhook(jwtDelivery(), { ...allow, tokenCache });
      revoked.add(tokensSeen()[0]!);
      const result = await deliverWebhook(jwtDelivery(), { ...allow, tokenCache });
      expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
      expect(logins).toBe(2);
      expect(target.requests).toHaveLength(3);
      expect(target.requests[2]!.headers['webhook-id']).toBe(target.requests[1]!.headers['webhook-id']);
    });

    it('gives up after one re-login, without leaking the token or password', async () => {
      rejectAll = true;
      const logger = recordingLogger();
      const result = await deliverWebhook(jwtDelivery(), { ...allow, tokenCache, logger });
      expect(result).toMatchObject({ ok: false, statusCode: 401, error: 'receiver answered HTTP 401' });
      expect(logins).toBe(2);
      expect(target.requests).toHaveLength(2);
      const logged = logger.lines.join('\n');
      const leaked = [...tokensSeen(), PASSWORD].filter((s) => logged.includes(s) || result.error!.includes(s));
      expect(leaked).toEqual([]);
    });

    it('reports a rejected login without the password', async () => {
      const result = await deliverWebhook({ ...jwtDelivery(), password: 'wrong-password' }, { ...allow, tokenCache });
      expect(result).toEqual({
        ok: false,
        statusCode: null,
        error: `login at 127.0.0.1:${login.port} answered HTTP 401`,
        durationMs: expect.any(Number),
        retryAfterMs: null,
      });
      expect(target.connections()).toBe(0);
    });

    it('guards the loginUrl: nothing reaches the login server or the receiver', async () => {
      const result = await deliverWebhook(jwtDelivery(), { allowPrivateNetwork: false, tokenCache });
      expect(result.ok).toBe(false);
      expect(result.error).toContain('destination_not_allowed: 127.0.0.1');
      expect(result.error).not.toContain(PASSWORD);
      expect(login.connections()).toBe(0);
      expect(target.connections()).toBe(0);
    });
  });
});
