import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** The absolute URL the browser asked the proxy for. */
  url: string;
  proxyAuthorization: string | null;
}

export interface TestProxy {
  readonly port: number;
  /** `http://127.0.0.1:<port>`, or with credentials when the proxy requires them. */
  readonly proxyUrl: string;
  readonly requests: ProxiedRequest[];
  close(): Promise<void>;
}

export interface TestProxyOptions {
  /** Require Basic proxy auth with these (answering 407 otherwise, as real proxies do). */
  credentials?: { username: string; password: string };
  /** Answers for proxied requests; by default an HTML page naming the requested URL. */
  respond?: (url: string) => { status: number; contentType: string; body: string };
}

/**
 * A forward HTTP proxy that answers every request itself instead of forwarding it. A page from a
 * made-up host (which cannot resolve) that loads at all therefore proves the traffic went here.
 * CONNECT (HTTPS) is not supported.
 */
export async function startTestProxy(options: TestProxyOptions = {}): Promise<TestProxy> {
  const requests: ProxiedRequest[] = [];
  const expected = options.credentials
    ? `Basic ${Buffer.from(`${options.credentials.username}:${options.credentials.password}`).toString('base64')}`
    : null;
  const respond =
    options.respond ??
    ((url: string) => ({
      status: 200,
      contentType: 'text/html',
      body: `<h1 id="via">served by test proxy for ${url}</h1>`,
    }));

  const server = http.createServer((req, res) => {
    const auth = req.headers['proxy-authorization'] ?? null;
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '', proxyAuthorization: auth });
    if (expected && auth !== expected) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="botfleet-test"' }).end();
      return;
    }
    const answer = respond(req.url ?? '');
    res.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body);
  });
  server.on('connect', (_req, socket) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const creds = options.credentials
    ? `${encodeURIComponent(options.credentials.username)}:${encodeURIComponent(options.credentials.password)}@`
    : '';
  return {
    port,
    proxyUrl: `http://${creds}127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
