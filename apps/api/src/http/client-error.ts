import type { ErrorCode } from '@botfleet/core';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { HTTP_STATUS_OF } from './error-status';

/** Node's own codes for requests it refuses before Express sees them, mapped to the contract's. */
function codeFor(err: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'request_header_too_large', message: 'The request line and headers are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'The request did not arrive in time' };
    default:
      return { code: 'bad_request', message: 'Malformed HTTP request' };
  }
}

/**
 * The server's 'clientError' handler: a request Node's parser refuses (bad framing, oversized or
 * invalid headers, a slow-loris past headersTimeout) gets the same error envelope as any other
 * 4xx, then the connection closes. Node's default would answer with an empty body.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // The peer is gone or a response already started: nothing sensible can be written.
  if (err.code === 'ECONNRESET' || !socket.writable || (socket as Duplex & { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const { code, message } = codeFor(err);
  const status = HTTP_STATUS_OF[code];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
