import type { ErrorCode } from '@botfleet/core';
import { IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { HTTP_STATUS_OF } from './error-status';

/*
 * Whether a response is already under way on a socket is not in Node's public API: Node keeps
 * the socket's current ServerResponse in the internal `socket._httpMessage`, and its own default
 * 'clientError' handler reads it for the same decision (lib/_http_server.js, socketOnError). We
 * read it too, because writing a second status line into a response that started would corrupt
 * what the client receives. Checked on Node 20.20, 22.23 and 24.21 (the majors `engines` allows):
 * set by `assignSocket` while a response is in flight, null after it, absent before the first.
 * A Node that no longer sets it is found once, at load, and then every refused request closes
 * its connection without an answer: what Node does itself when it cannot answer safely.
 */

/** Whether this Node records a socket's in-flight response as `socket._httpMessage`. */
export function nodeTracksSocketResponse(): boolean {
  const socket = new Socket();
  const response = new ServerResponse(new IncomingMessage(socket));
  try {
    response.assignSocket(socket);
    return (socket as Socket & { _httpMessage?: unknown })._httpMessage === response;
  } finally {
    response.detachSocket(socket);
    socket.destroy();
  }
}

const SOCKET_TRACKS_RESPONSE = nodeTracksSocketResponse();

/**
 * Whether a response may have started on the socket: what Node recorded there, or true when this
 * Node records nothing we can read (`tracked` false), the answer that never corrupts a response.
 */
export function mayHaveResponseInFlight(socket: Duplex, tracked = SOCKET_TRACKS_RESPONSE): boolean {
  if (!tracked) return true;
  return Boolean((socket as Duplex & { _httpMessage?: unknown })._httpMessage);
}

/** Node's own codes for requests it refuses before Express sees them, mapped to botfleet's error codes. */
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
  if (err.code === 'ECONNRESET' || !socket.writable || mayHaveResponseInFlight(socket)) {
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
