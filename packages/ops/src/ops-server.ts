import type { Logger } from '@botfleet/core';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Ops } from './ops';
import { answerProbe, isProbePath } from './probes';

export interface OpsServer {
  /** The port it listens on (the one asked for, or the one picked for port 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The ops endpoints every role serves on OPS_PORT, apart from the API's own port so probes and
 * scrapes work the same for every role and never compete with API traffic or its rate limit:
 * GET /healthz (the process answers), /readyz (its dependencies answer), /metrics (Prometheus).
 * The probes are answered by probes.ts, as on the API's port.
 */
export async function startOpsServer(options: {
  port: number;
  host?: string;
  ops: Ops;
  logger: Logger;
  /**
   * The text /metrics answers, in the registry's format: this process's registry by default. A
   * launcher with API processes of its own passes their sum with its own (api-processes.ts).
   */
  readMetrics?: () => Promise<string>;
}): Promise<OpsServer> {
  const { ops, logger } = options;
  const readMetrics = options.readMetrics ?? (() => ops.registry.metrics());
  const server = createServer((req, res) => {
    handle(ops, readMetrics, req, res).catch((err: unknown) => {
      logger.error({ err: (err as Error).message, path: req.url }, 'ops endpoint failed');
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'internal', message: 'Internal error' } });
      else res.end();
    });
  });
  // Probes keep connections open; they must not hold up shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => {
      server.off('error', fail);
      ready();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  logger.info({ port }, 'ops endpoints listening');
  return {
    port,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  ops: Ops,
  readMetrics: () => Promise<string>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return sendJson(res, 405, { error: { code: 'method_not_allowed', message: `${req.method} is not allowed` } });
  }
  if (isProbePath(path)) {
    const answer = await answerProbe(path, ops.readiness);
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    return sendJson(res, answer.status, answer.body);
  }
  switch (path) {
    case '/metrics': {
      const body = await readMetrics();
      res.writeHead(200, { 'Content-Type': ops.registry.contentType, 'Cache-Control': 'no-store' });
      res.end(body);
      return;
    }
    default:
      return sendJson(res, 404, { error: { code: 'not_found', message: `No route for ${req.method} ${path}` } });
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}
