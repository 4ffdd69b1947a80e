import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { JwtLoginError } from './errors';
import { JwtTokenCache } from './jwt-token-cache';
import { startReceiver, type ReceiverHandler, type TestReceiver } from './test-receiver';

const SIGNING_KEY = 'login-server-signing-key';
const allow = { allowPrivateNetwork: true };

function issue(expiresInSeconds: number): string {
  // jti keeps tokens issued within the same second distinct.
  return jwt.sign({ sub: 'robot', jti: randomUUID() }, SIGNING_KEY, { expiresIn: expiresInSeconds });
}

describe('JwtTokenCache', () => {
  const receivers: TestReceiver[] = [];
  const loginServer = async (handler: ReceiverHandler): Promise<TestReceiver> => {
    const server = await startReceiver(handler);
    receivers.push(server);
    return server;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  let nowMs: number;
  beforeEach(() => {
    nowMs = Date.now();
  });
  const clock = (): number => nowMs;

  it('posts the credentials as JSON and reuses the token until shortly before exp', async () => {
    const server = await loginServer((_req, res) => res.writeHead(200).end(JSON.stringify({ access_token: issue(120) })));
    const cache = new JwtTokenCache({ now: clock, safetyMarginMs: 10_000 });
    const credentials = { loginUrl: `${server.url}/login`, username: 'robot', password: 'hunter2' };

    const first = await cache.getToken(credentials, allow);
    expect(await cache.getToken(credentials, allow)).toBe(first);
    nowMs += 100_000;
    expect(await cache.getToken(credentials, allow)).toBe(first);
    expect(server.requests).toHaveLength(1);
    expect(JSON.parse(server.requests[0]!.body)).toEqual({ username: 'robot', password: 'hunter2' });
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');

    // Inside the safety margin before exp: renewed.
    nowMs += 15_000;
    const second = await cache.getToken(credentials, allow);
    expect(second).not.toBe(first);
    expect(server.requests).toHaveLength(2);
  });

  it('keeps one token per (loginUrl, username) and shares a login between concurrent callers', async () => {
    const server = await loginServer((_req, res) => res.writeHead(200).end(JSON.stringify({ token: issue(60) })));
    const cache = new JwtTokenCache({ now: clock });
    const loginUrl = `${server.url}/login`;
    const [a, b] = await Promise.all([
      cache.getToken({ loginUrl, username: 'a', password: 'p' }, allow),
      cache.getToken({ loginUrl, username: 'a', password: 'p' }, allow),
    ]);
    expect(a).toBe(b);
    const other = await cache.getToken({ loginUrl, username: 'b', password: 'p' }, allow);
    expect(other).not.toBe(a);
    expect(server.requests).toHaveLength(2);
  });

  it('invalidate forces a new login, but not for a token that was already replaced', async () => {
    const server = await loginServer((_req, res) => res.writeHead(200).end(JSON.stringify({ jwt: issue(60) })));
    const cache = new JwtTokenCache({ now: clock });
    const credentials = { loginUrl: server.url, username: 'robot', password: 'pw' };
    const first = await cache.getToken(credentials, allow);
    cache.invalidate(server.url, 'robot', first);
    const second = await cache.getToken(credentials, allow);
    expect(second).not.toBe(first);
    cache.invalidate(server.url, 'robot', first);
    expect(await cache.getToken(credentials, allow)).toBe(second);
    cache.invalidate(server.url, 'robot');
    expect(await cache.getToken(credentials, allow)).not.toBe(second);
    expect(server.requests).toHaveLength(3);
  });

  it('reads the first of token, access_token, accessToken, jwt', async () => {
    const replies = [
      { jwt: 'j', accessToken: 'c', access_token: 'b', token: 'a' },
      { jwt: 'j', accessToken: 'c', access_token: 'b' },
      { jwt: 'j', accessToken: 'c' },
      { jwt: 'j', token: 42 },
    ];
    const server = await loginServer((_req, res) => res.writeHead(200).end(JSON.stringify(replies.shift())));
    const tokens: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const cache = new JwtTokenCache({ now: clock });
      tokens.push(await cache.getToken({ loginUrl: server.url, username: 'u', password: 'p' }, allow));
    }
    expect(tokens).toEqual(['a', 'b', 'c', 'j']);
  });

  it('caches a token without exp for the default TTL', async () => {
    let issued = 0;
    const server = await loginServer((_req, res) => res.writeHead(200).end(JSON.stringify({ token: `opaque-${++issued}` })));
    const cache = new JwtTokenCache({ now: clock, defaultTtlMs: 5 * 60_000 });
    const credentials = { loginUrl: server.url, username: 'u', password: 'p' };
    expect(await cache.getToken(credentials, allow)).toBe('opaque-1');
    nowMs += 4 * 60_000;
    expect(await cache.getToken(credentials, allow)).toBe('opaque-1');
    nowMs += 2 * 60_000;
    expect(await cache.getToken(credentials, allow)).toBe('opaque-2');
  });

  it('fails with a status and no credentials when the login is rejected or has no token', async () => {
    const replies: Array<[number, string]> = [
      [401, '{"error":"bad password hunter2"}'],
      [200, '{"message":"welcome"}'],
      [200, 'not json'],
    ];
    const server = await loginServer((_req, res) => {
      const [status, body] = replies.shift()!;
      res.writeHead(status).end(body);
    });
    const cache = new JwtTokenCache({ now: clock });
    const credentials = { loginUrl: `${server.url}/login`, username: 'robot', password: 'hunter2' };
    const rejected = cache.getToken(credentials, allow);
    await expect(rejected).rejects.toBeInstanceOf(JwtLoginError);
    await expect(rejected).rejects.toMatchObject({ statusCode: 401, message: `login at 127.0.0.1:${server.port} answered HTTP 401` });
    await expect(cache.getToken(credentials, allow)).rejects.toThrow(/without a token \(expected one of token, access_token/);
    await expect(cache.getToken(credentials, allow)).rejects.toThrow(/without a token/);
  });

  it('guards the loginUrl like any other destination', async () => {
    const server = await loginServer((_req, res) => res.writeHead(200).end('{"token":"t"}'));
    const cache = new JwtTokenCache({ now: clock });
    const attempt = cache.getToken({ loginUrl: `${server.url}/login`, username: 'u', password: 'p' }, { allowPrivateNetwork: false });
    await expect(attempt).rejects.toMatchObject({ statusCode: null });
    await expect(attempt).rejects.toThrow(/destination 127\.0\.0\.1 is a private or loopback address/);
    expect(server.connections()).toBe(0);
  });
});
