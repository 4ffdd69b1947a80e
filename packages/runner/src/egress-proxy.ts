import { isPublicAddress } from '@botfleet/core';
import { createGuardedLookup, type GuardedLookupOptions } from '@botfleet/io';
import http, { type IncomingHttpHeaders } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * A forward proxy on loopback that Chromium is forced through when ALLOW_PRIVATE_NETWORK=false.
 * It resolves every name itself and checks the address it actually connects to (the guarded
 * lookup), so neither DNS rebinding nor a WebSocket nor any other request a page can make reaches
 * a private address. Plain HTTP arrives in absolute form; HTTPS and WebSockets arrive as CONNECT.
 */
export interface EgressProxy {
  /** `http://127.0.0.1:<port>`, for Chromium's --proxy-server. */
  readonly url: string;
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  /** Which addresses may be reached; public ones by default. */
  isAllowedAddress?: (address: string) => boolean;
  /** The resolver (tests inject one that answers differently from the page-level check). */
  resolve?: GuardedLookupOptions['resolve'];
  /** Called with `host:port` for each refused connection. */
  onRefused?: (destination: string) => void;
}

class EgressRefusedError extends Error {
  constructor(readonly hostname: string) {
    super(`${hostname} is not a public address`);
  }
}

// Headers that describe one hop, not the request (RFC 9110 §7.6.1), plus the proxy's own.
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)));
}

/** `host:port` of a CONNECT request target, IPv6 in brackets. */
function parseAuthority(authority: string): { host: string; port: number } | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return null;
  const port = Number(match[2]);
  return port > 0 && port < 65536 ? { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port } : null;
}

export async function startEgressProxy(options: EgressProxyOptions = {}): Promise<EgressProxy> {
  const isAllowed = options.isAllowedAddress ?? isPublicAddress;
  const lookup = createGuardedLookup({
    isAllowedAddress: isAllowed,
    resolve: options.resolve,
    refuse: (hostname) => new EgressRefusedError(hostname),
  });
  // One pool for every upstream; each new socket goes through the guarded lookup.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64, lookup });
  const sockets = new Set<Duplex>();

  /** Node skips `lookup` for IP literals, so those are judged here. */
  const literalRefused = (host: string) => net.isIP(host) !== 0 && !isAllowed(host);
  const refused = (destination: string) => options.onRefused?.(destination);

  const server = http.createServer((req, res) => {
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected');
      return;
    }
    const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
    if (target.protocol !== 'http:') {
      res.writeHead(400).end('only http: is proxied in absolute form');
      return;
    }
    if (literalRefused(host)) {
      refused(target.host);
      res.writeHead(403, { 'content-type': 'text/plain' }).end('blocked: not a public address');
      return;
    }
    const upstream = http.request(
      {
        host,
        port: Number(target.port || 80),
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: endToEnd(req.headers),
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (err instanceof EgressRefusedError) refused(target.host);
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(err instanceof EgressRefusedError ? 403 : 502, { 'content-type': 'text/plain' })
          .end(err instanceof EgressRefusedError ? 'blocked: not a public address' : 'bad gateway');
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const target = parseAuthority(req.url ?? '');
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    if (literalRefused(target.host)) {
      refused(req.url ?? '');
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = net.connect({ host: target.host, port: target.port, lookup });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    client.on('close', () => upstream.destroy());
    let established = false;
    upstream.once('connect', () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err) => {
      if (err instanceof EgressRefusedError) refused(req.url ?? '');
      if (!established && client.writable)
        client.end(`HTTP/1.1 ${err instanceof EgressRefusedError ? '403 Forbidden' : '502 Bad Gateway'}\r\n\r\n`);
      else client.destroy();
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
