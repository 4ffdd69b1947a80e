import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { CONFIG_DEFAULTS } from '@botfleet/core';
import { assertLiteralHostAllowed, createGuardedLookup } from './destination-guard';
import type { ConnectionPool } from './connection-pool';
import { HttpPostError } from './errors';

/** Enough for an error message or a login reply; a receiver cannot make us buffer more. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

export interface HttpPostRequest {
  url: string;
  /** Sent byte for byte (signatures cover it). */
  body: string;
  headers?: Record<string, string>;
}

export interface HttpPostOptions {
  allowPrivateNetwork: boolean;
  /** One deadline for connect, response headers and reading the body. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /**
   * Keep-alive sockets to reuse (created for the same private-network setting). Without one,
   * every request opens a connection of its own and closes it.
   */
  pool?: ConnectionPool;
}

export interface HttpPostResponse {
  statusCode: number;
  /** UTF-8 text of at most `maxResponseBytes` bytes. */
  body: string;
  truncated: boolean;
  durationMs: number;
  /** The receiver's `Retry-After` header as given, or null. */
  retryAfter: string | null;
}

function parseTarget(rawUrl: string): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    // The URL itself stays out of the message: it may carry a credential in its query.
    throw new HttpPostError('invalid_request', 'invalid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new HttpPostError('invalid_request', `unsupported protocol ${url.protocol} (only http and https)`);
  }
  return url;
}

/**
 * One POST, no redirects (node:http never follows them, so a 3xx is an ordinary non-2xx answer
 * and cannot bounce us to an internal address). Resolves with any HTTP status; rejects with
 * HttpPostError when there is no response (refused destination, timeout, network failure).
 */
export function httpPost(request: HttpPostRequest, options: HttpPostOptions): Promise<HttpPostResponse> {
  const timeoutMs = options.timeoutMs ?? CONFIG_DEFAULTS.WEBHOOK_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const { pool } = options;
  if (pool && pool.allowPrivateNetwork !== options.allowPrivateNetwork) {
    // Its sockets were checked (or not) for the other setting: reusing them would bypass the guard.
    return Promise.reject(new Error('connection pool was created for another private-network setting'));
  }
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);

  return new Promise<HttpPostResponse>((resolve, reject) => {
    let url: URL;
    try {
      url = parseTarget(request.url);
      assertLiteralHostAllowed(url.hostname, options);
    } catch (err) {
      reject(err);
      return;
    }
    const host = url.hostname;
    // URL keeps IPv6 literals bracketed; http.request wants them bare (as urlToHttpOptions does).
    const hostname = host.replace(/^\[(.*)\]$/, '$1');
    let settled = false;
    let req: http.ClientRequest | undefined;

    /** `reusable`: the response was read to its end, so a pooled socket can serve the next request. */
    const settle = (action: () => void, reusable = false): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
      // Otherwise whatever is left (an unread body, a half-open socket) is of no use to us.
      if (!reusable || !pool) req?.destroy();
    };
    const fail = (err: HttpPostError): void => settle(() => reject(err));

    const timer = setTimeout(() => {
      fail(new HttpPostError('timeout', `no complete response from ${host} within ${timeoutMs} ms`));
    }, timeoutMs);

    const onResponse = (res: http.IncomingMessage): void => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      const done = (): void =>
        settle(
          () =>
            resolve({
              statusCode: res.statusCode ?? 0,
              body: Buffer.concat(chunks).toString('utf8'),
              truncated,
              durationMs: elapsed(),
              retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : null,
            }),
          res.complete && !truncated,
        );
      res.on('data', (chunk: Buffer) => {
        const room = maxBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room));
          truncated = true;
          done();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', done);
      // The status line arrived, so a body cut short still counts as an answer.
      res.on('close', () => {
        truncated = truncated || !res.complete;
        done();
      });
      res.on('error', () => undefined);
    };

    try {
      const transport = url.protocol === 'https:' ? https : http;
      req = transport.request(
        {
          protocol: url.protocol,
          hostname,
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body, 'utf8')) },
          // The pool's agents carry the guarded lookup themselves (see connection-pool.ts).
          ...(pool
            ? { agent: url.protocol === 'https:' ? pool.https : pool.http }
            : { agent: false, lookup: options.allowPrivateNetwork ? undefined : createGuardedLookup() }),
        },
        onResponse,
      );
    } catch (err) {
      // Invalid header names/values; Node's message names the header, not its value.
      fail(new HttpPostError('invalid_request', `cannot build request to ${host}: ${(err as Error).message}`));
      return;
    }
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof HttpPostError) return fail(err);
      // The code only: Node's messages name the address connected to ("connect ECONNREFUSED
      // 10.0.0.7:443"), which would tell a tenant how the host resolved.
      fail(
        new HttpPostError('network', `request to ${host} failed: ${err.code ?? 'connection error'}`, { cause: err }),
      );
    });
    req.end(request.body, 'utf8');
  });
}
