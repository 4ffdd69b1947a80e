import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startReceiver, type ReceiverHandler, type TestReceiver } from '@botfleet/testkit';
import { JwtLoginError } from './errors';
import { JwtTokenCache } from './jwt-token-cache';

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
    const server = await loginServer((_req, res) =>
      res.writeHead(200).end(JSON.stringify({ access_token: issue(120) })),
    );
    const cache = new JwtTokenCache({ now: clock, safetyMarginMs: 10_000 });
    const credentials = {
      organizationId: 'org_a',
      loginUrl: `${server.url}/login`,
      username: 'robot',
      password: 'hunter2',
    };

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

  it('keeps one token per account and shares a login between concurrent callers', async () => {
    const server = await loginServer((_req, res) => res.writeHead(200).end(JSON.stringify({ token: issue(60) })));
    const cache = new JwtTokenCache({ now: clock });
    const loginUrl = `${server.url}/login`;
    const [a, b] = await Promise.all([
      cache.getToken({ organizationId: 'org_a', loginUrl, username: 'a', password: 'p' }, allow),
      cache.getToken({ organizationId: 'org_a', loginUrl, username: 'a', password: 'p' }, allow),
    ]);
    expect(a).toBe(b);
    const other = await cache.getToken({ organizationId: 'org_a', loginUrl, username: 'b', password: 'p' }, allow);
    expect(other).not.toBe(a);
    expect(server.requests).toHaveLength(2);
  });

  it('invalidate forces a new login, but not for a token that was already replaced', async () => {
    const server = await loginServer((_req, res) => res.writeHead(200).end(JSON.stringify({ jwt: issue(60) })));
    const cache = new JwtTokenCache({ now: clock });
    const credentials = { organizationId: 'org_a', loginUrl: server.url, username: 'robot', password: 'pw' };
    const first = await cache.getToken(credentials, allow);
    cache.invalidate(credentials, first);
    const second = await cache.getToken(credentials, allow);
    expect(second).not.toBe(first);
    cache.invalidate(credentials, first);
    expect(await cache.getToken(credentials, allow)).toBe(second);
    cache.invalidate(credentials);
    expect(await cache.getToken(credentials, allow)).not.toBe(second);
    expect(server.requests).toHaveLength(3);
  });

  describe('isolation', () => {
    /** A login server that only accepts each username's own password, and says in the token whose it is. */
    const accounts = new Map([
      ['org_a', 'alpha-password'],
      ['org_b', 'beta-password'],
    ]);
    const strictLoginServer = () =>
      loginServer((req, res) => {
        const { username, password } = JSON.parse(req.body) as { username: string; password: string };
        const owner = [...accounts].find(([, p]) => p === password)?.[0];
        if (username !== 'shared-robot' || !owner) return void res.writeHead(401).end();
        res.writeHead(200).end(
          JSON.stringify({
            token: jwt.sign({ sub: username, owner, jti: randomUUID() }, SIGNING_KEY, { expiresIn: 600 }),
          }),
        );
      });
    const ownerOf = (token: string) => (jwt.decode(token, { json: true }) as { owner: string }).owner;

    it('gives two organizations with the same login URL and username their own tokens', async () => {
      const server = await strictLoginServer();
      const cache = new JwtTokenCache({ now: clock });
      const as = (organizationId: string) => ({
        organizationId,
        loginUrl: `${server.url}/login`,
        username: 'shared-robot',
        password: accounts.get(organizationId)!,
      });
      const a = await cache.getToken(as('org_a'), allow);
      const b = await cache.getToken(as('org_b'), allow);
      expect([ownerOf(a), ownerOf(b)]).toEqual(['org_a', 'org_b']);
      // Each organization's own token keeps being reused for it.
      expect(await cache.getToken(as('org_a'), allow)).toBe(a);
      expect(await cache.getToken(as('org_b'), allow)).toBe(b);
      expect(server.requests.map((r) => (JSON.parse(r.body) as { password: string }).password)).toEqual([
        'alpha-password',
        'beta-password',
      ]);
    });

    it('never hands a cached token to other credentials: a wrong password must log in (and fail) itself', async () => {
      const server = await strictLoginServer();
      const cache = new JwtTokenCache({ now: clock });
      const loginUrl = `${server.url}/login`;
      await cache.getToken(
        { organizationId: 'org_a', loginUrl, username: 'shared-robot', password: 'alpha-password' },
        allow,
      );
      await expect(
        cache.getToken({ organizationId: 'org_c', loginUrl, username: 'shared-robot', password: 'guess' }, allow),
      ).rejects.toMatchObject({ statusCode: 401 });
      await expect(
        cache.getToken({ organizationId: 'org_a', loginUrl, username: 'shared-robot', password: 'guess' }, allow),
      ).rejects.toMatchObject({ statusCode: 401 });
      expect(server.requests).toHaveLength(3);
    });

    it('logs in again after a rotated password and drops the old token', async () => {
      const server = await strictLoginServer();
      const cache = new JwtTokenCache({ now: clock });
      const loginUrl = `${server.url}/login`;
      const first = await cache.getToken(
        { organizationId: 'org_a', loginUrl, username: 'shared-robot', password: 'alpha-password' },
        allow,
      );
      accounts.set('org_a', 'alpha-rotated');
      try {
        const second = await cache.getToken(
          { organizationId: 'org_a', loginUrl, username: 'shared-robot', password: 'alpha-rotated' },
          allow,
        );
        expect(second).not.toBe(first);
        expect(ownerOf(second)).toBe('org_a');
        expect(cache.size).toBe(1);
        expect(server.requests).toHaveLength(2);
      } finally {
        accounts.set('org_a', 'alpha-password');
      }
    });
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
      tokens.push(
        await cache.getToken({ organizationId: 'org_a', loginUrl: server.url, username: 'u', password: 'p' }, allow),
      );
    }
    expect(tokens).toEqual(['a', 'b', 'c', 'j']);
  });

  it('caches a token without exp for the default TTL', async () => {
    let issued = 0;
    const server = await loginServer((_req, res) =>
      res.writeHead(200).end(JSON.stringify({ token: `opaque-${++issued}` })),
    );
    const cache = new JwtTokenCache({ now: clock, defaultTtlMs: 5 * 60_000 });
    const credentials = { organizationId: 'org_a', loginUrl: server.url, username: 'u', password: 'p' };
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
    const credentials = {
      organizationId: 'org_a',
      loginUrl: `${server.url}/login`,
      username: 'robot',
      password: 'hunter2',
    };
    const rejected = cache.getToken(credentials, allow);
    await expect(rejected).rejects.toBeInstanceOf(JwtLoginError);
    await expect(rejected).rejects.toMatchObject({
      statusCode: 401,
      message: `login at 127.0.0.1:${server.port} answered HTTP 401`,
    });
    await expect(cache.getToken(credentials, allow)).rejects.toThrow(
      /without a token \(expected one of token, access_token/,
    );
    await expect(cache.getToken(credentials, allow)).rejects.toThrow(/without a token/);
  });

  it('guards the loginUrl like any other destination', async () => {
    const server = await loginServer((_req, res) => res.writeHead(200).end('{"token":"t"}'));
    const cache = new JwtTokenCache({ now: clock });
    const attempt = cache.getToken(
      { organizationId: 'org_a', loginUrl: `${server.url}/login`, username: 'u', password: 'p' },
      { allowPrivateNetwork: false },
    );
    await expect(attempt).rejects.toMatchObject({ statusCode: null });
    await expect(attempt).rejects.toThrow(/destination_not_allowed: 127\.0\.0\.1$/);
    expect(server.connections()).toBe(0);
  });
});
