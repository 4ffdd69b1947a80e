import { startReceiver, waitUntil, type TestReceiver } from '@botfleet/testkit';
import { createConnectionPool } from './connection-pool';
import { DestinationRefusedError, HttpPostError } from './errors';
import { httpPost } from './http-post';

const allow = { allowPrivateNetwork: true };
const refuse = { allowPrivateNetwork: false };

describe('httpPost', () => {
  const receivers: TestReceiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>): Promise<TestReceiver> => {
    const started = await startReceiver(...args);
    receivers.push(started);
    return started;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('posts the body and headers and returns the answer', async () => {
    const target = await receiver((_req, res) => res.writeHead(201).end('created'));
    const response = await httpPost(
      {
        url: `${target.url}/hook?x=1`,
        body: '{"a":1}',
        headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      },
      allow,
    );
    expect(response).toMatchObject({ statusCode: 201, body: 'created', truncated: false });
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
    expect(target.requests).toEqual([
      expect.objectContaining({
        method: 'POST',
        url: '/hook?x=1',
        body: '{"a":1}',
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'x-test': 'yes',
          'content-length': '7',
        }),
      }),
    ]);
  });

  it('returns a 500 as an answer, not an error', async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end('boom'));
    await expect(httpPost({ url: target.url, body: '{}' }, allow)).resolves.toMatchObject({
      statusCode: 500,
      body: 'boom',
    });
  });

  it('does not follow a redirect, even to another loopback receiver', async () => {
    const internal = await receiver();
    const target = await receiver((_req, res) => res.writeHead(307, { location: `${internal.url}/admin` }).end());
    const response = await httpPost({ url: target.url, body: '{}' }, allow);
    expect(response.statusCode).toBe(307);
    expect(internal.connections()).toBe(0);
  });

  it('reads at most maxResponseBytes of an endless body and hangs up', async () => {
    const target = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
      };
      res.on('drain', pump);
      pump();
    });
    const response = await httpPost(
      { url: target.url, body: '{}' },
      { ...allow, maxResponseBytes: 1000, timeoutMs: 5_000 },
    );
    expect(response.statusCode).toBe(200);
    expect(response.truncated).toBe(true);
    expect(response.body).toBe('x'.repeat(1000));
  });

  it('keeps 64 KiB of a large body by default', async () => {
    const target = await receiver((_req, res) => res.writeHead(200).end('y'.repeat(1024 * 1024)));
    const response = await httpPost({ url: target.url, body: '{}' }, allow);
    expect(response).toMatchObject({ statusCode: 200, truncated: true });
    expect(response.body).toHaveLength(64 * 1024);
  });

  it('reaches an IPv6 literal when private networks are allowed', async () => {
    let target: TestReceiver;
    try {
      target = await receiver(undefined, '::1');
    } catch {
      return; // no IPv6 loopback on this machine
    }
    await expect(httpPost({ url: `${target.url}/v6`, body: '{}' }, allow)).resolves.toMatchObject({ statusCode: 200 });
    expect(target.requests[0]!.url).toBe('/v6');
  });

  it('gives up on a receiver that never answers within the timeout', async () => {
    const target = await receiver(() => undefined);
    const started = Date.now();
    const attempt = httpPost({ url: target.url, body: '{}' }, { ...allow, timeoutMs: 200 });
    await expect(attempt).rejects.toMatchObject({ kind: 'timeout', message: expect.stringContaining('200 ms') });
    expect(Date.now() - started).toBeLessThan(10_000); // generous for a loaded machine; silent is forever
    expect(target.requests).toHaveLength(1);
  });

  it('reports a closed port as a network error', async () => {
    const target = await receiver();
    const url = target.url;
    await target.close();
    receivers.splice(receivers.indexOf(target), 1);
    await expect(httpPost({ url, body: '{}' }, allow)).rejects.toMatchObject({
      kind: 'network',
      name: 'HttpPostError',
    });
    // Reached by name, the error names the host as given, never the address it connected to.
    const byName = `http://localhost:${new URL(url).port}/hook`;
    const error = (await httpPost({ url: byName, body: '{}' }, allow).then(
      () => null,
      (err: unknown) => err,
    )) as HttpPostError;
    expect(error.message).toBe('request to localhost failed: ECONNREFUSED');
  });

  it('refuses a loopback IP literal before connecting', async () => {
    const target = await receiver();
    const attempt = httpPost({ url: target.url, body: '{}' }, refuse);
    await expect(attempt).rejects.toBeInstanceOf(DestinationRefusedError);
    await expect(attempt).rejects.toThrow(/^destination_not_allowed: 127\.0\.0\.1$/);
    expect(target.connections()).toBe(0);
  });

  it('refuses a hostname that resolves to loopback, at connect time', async () => {
    const target = await receiver();
    const attempt = httpPost({ url: `http://localhost:${target.port}/`, body: '{}' }, refuse);
    await expect(attempt).rejects.toMatchObject({ kind: 'destination_not_allowed', host: 'localhost' });
    expect(target.connections()).toBe(0);
  });

  it('refuses IPv6 loopback and IPv4-mapped loopback literals', async () => {
    await expect(httpPost({ url: 'http://[::1]:9/', body: '{}' }, refuse)).rejects.toThrow(
      /^destination_not_allowed: \[::1\]$/,
    );
    await expect(httpPost({ url: 'http://[::ffff:127.0.0.1]:9/', body: '{}' }, refuse)).rejects.toBeInstanceOf(
      DestinationRefusedError,
    );
    // WHATWG URL parsing turns the decimal form into 127.0.0.1 before the guard sees it.
    await expect(httpPost({ url: 'http://2130706433:9/', body: '{}' }, refuse)).rejects.toBeInstanceOf(
      DestinationRefusedError,
    );
  });

  describe('with a connection pool', () => {
    it('reuses one keep-alive connection for requests to the same receiver; without a pool each opens its own', async () => {
      const target = await receiver((_req, res) => res.writeHead(200).end('ok'));
      const pool = createConnectionPool(allow);
      try {
        for (let i = 0; i < 3; i++) {
          await expect(httpPost({ url: target.url, body: `{"n":${i}}` }, { ...allow, pool })).resolves.toMatchObject({
            statusCode: 200,
          });
        }
        expect(target.requests).toHaveLength(3);
        expect(target.connections()).toBe(1);
      } finally {
        pool.close();
      }
      for (let i = 0; i < 2; i++) await httpPost({ url: target.url, body: '{}' }, allow);
      expect(target.connections()).toBe(3);
    });

    it('does not reuse a connection whose answer was cut short', async () => {
      const target = await receiver((_req, res) => {
        res.writeHead(200);
        res.end('x'.repeat(4096));
      });
      const pool = createConnectionPool(allow);
      try {
        const cut = await httpPost({ url: target.url, body: '{}' }, { ...allow, pool, maxResponseBytes: 10 });
        expect(cut.truncated).toBe(true);
        await httpPost({ url: target.url, body: '{}' }, { ...allow, pool });
        expect(target.connections()).toBe(2);
      } finally {
        pool.close();
      }
    });

    it('still checks each address at connect time with the private network closed', async () => {
      const target = await receiver();
      const pool = createConnectionPool(refuse);
      try {
        const attempt = httpPost({ url: `http://localhost:${target.port}/`, body: '{}' }, { ...refuse, pool });
        await expect(attempt).rejects.toMatchObject({ kind: 'destination_not_allowed', host: 'localhost' });
        expect(target.connections()).toBe(0);
      } finally {
        pool.close();
      }
    });

    it('lets a request in flight finish when the pool is closed, and keeps no socket after it', async () => {
      const target = await receiver((_req, res) => void setTimeout(() => res.writeHead(200).end('late'), 300));
      const pool = createConnectionPool(allow);
      const inFlight = httpPost({ url: target.url, body: '{}' }, { ...allow, pool });
      await waitUntil(() => target.requests.length === 1, { message: 'the request never arrived' });
      pool.close();
      await expect(inFlight).resolves.toMatchObject({ statusCode: 200, body: 'late' });
      expect(Object.values(pool.http.freeSockets).flat()).toHaveLength(0);
    });

    it('refuses a pool made for the other private-network setting', async () => {
      const target = await receiver();
      const open = createConnectionPool(allow);
      try {
        await expect(
          httpPost({ url: `http://localhost:${target.port}/`, body: '{}' }, { ...refuse, pool: open }),
        ).rejects.toThrow('connection pool was created for another private-network setting');
        expect(target.connections()).toBe(0);
      } finally {
        open.close();
      }
    });
  });

  it('rejects unusable URLs without echoing them', async () => {
    await expect(httpPost({ url: 'not a url?token=abc', body: '{}' }, allow)).rejects.toThrow(/^invalid URL$/);
    await expect(httpPost({ url: 'ftp://example.com/', body: '{}' }, allow)).rejects.toMatchObject({
      kind: 'invalid_request',
    });
    await expect(httpPost({ url: 'ftp://example.com/', body: '{}' }, allow)).rejects.toBeInstanceOf(HttpPostError);
  });
});
