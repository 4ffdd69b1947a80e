import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Test-only: a real HTTP server on 127.0.0.1 that records what reaches it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type ReceiverHandler = (request: ReceivedRequest, res: http.ServerResponse) => void;

export interface TestReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted, so a test can prove nothing even connected. */
  connections: () => number;
  close: () => Promise<void>;
}

const answerOk: ReceiverHandler = (_request, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
};

export async function startReceiver(handler: ReceiverHandler = answerOk, host = '127.0.0.1'): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  let connections = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      handler(received, res);
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    requests,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // Handlers that never answer would otherwise keep close() waiting forever.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
