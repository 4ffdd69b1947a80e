import type { RequestListener } from 'node:http';
import { createServer, type Server } from 'node:http';
import { answerClientError } from './client-error';

/** Headers must be complete within this; a client trickling them in is cut off with 408. */
const HEADERS_TIMEOUT_MS = 10_000;
/** How long past the body deadline Node itself ends a request: a backstop, the app answers 408 first. */
const REQUEST_BACKSTOP_MS = 5_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often Node checks the limits above (its default, 30 s, would let them overrun). */
const CONNECTIONS_CHECK_MS = 1_000;

/**
 * The API's HTTP server, listening on `port` (0 picks one). It bounds how long a client may take
 * (headers, whole request, idle keep-alive) so slow clients cannot pin sockets, and answers
 * requests Node's parser refuses with the error envelope.
 */
export async function listenHttp(app: RequestListener, port: number, requestTimeoutMs: number): Promise<Server> {
  const server = createServer(
    {
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
      requestTimeout: requestTimeoutMs + REQUEST_BACKSTOP_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: CONNECTIONS_CHECK_MS,
    },
    app,
  );
  server.on('clientError', answerClientError);
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(port, () => ready());
  });
  return server;
}
