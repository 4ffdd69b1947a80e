import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './wait-until';

export interface RecordedRequest {
  method: string;
  /** Path and query. */
  path: string;
  /** The Host header: tells mapped or proxied hostnames apart from 127.0.0.1. */
  host: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type FixtureHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;
/** HTML to serve with 200, or a handler. */
export type FixtureRoute = string | FixtureHandler;

export interface FixtureServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  url(path: string): string;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  setRoute(path: string, route: FixtureRoute): void;
  /** Polls until a matching request arrived (fails after timeoutMs). */
  waitForRequest(predicate: (request: RecordedRequest) => boolean, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

/**
 * A loopback HTTP server for browser tests. Routes match the path without its query; unknown
 * paths get 404. A handler may never answer (to test timeouts): close() drops its socket.
 */
export async function startFixtureServer(routes: Record<string, FixtureRoute> = {}): Promise<FixtureServer> {
  const table = new Map<string, FixtureRoute>(Object.entries(routes));
  const requests: RecordedRequest[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? 'GET', path, host: req.headers.host ?? '', headers: req.headers, body });
      const route = table.get(path.split('?')[0]!);
      if (route === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      } else if (typeof route === 'string') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(route);
      } else {
        Promise.resolve(route(req, res, body)).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500).end(String(error));
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    port,
    origin,
    url: (path) => `${origin}${path}`,
    requests,
    setRoute: (path, route) => void table.set(path, route),
    waitForRequest: (predicate, timeoutMs = 30_000) =>
      waitUntil(() => requests.find(predicate), { timeoutMs, message: 'expected request never arrived' }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
