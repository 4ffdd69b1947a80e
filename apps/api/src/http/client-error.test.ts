import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { answerClientError, mayHaveResponseInFlight, nodeTracksSocketResponse } from './client-error';

/*
 * The guard around Node's internal `socket._httpMessage` (client-error.ts), on the Node running
 * this test: it must see a response in flight where there is one, and none where there is none.
 */

let server: Server;
let port: number;
/** Requests the handler holds without answering, so their responses stay in flight. */
const held: (() => void)[] = [];

beforeAll(async () => {
  server = createServer((_req, res) => held.push(() => res.end('late')));
  server.on('clientError', answerClientError);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const release of held) release();
  server.closeAllConnections();
  await new Promise<void>((done) => server.close(() => done()));
});

/** Writes the bytes and returns everything the server sent until it closed the connection. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(raw, 'latin1'));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    // A reset is a close too (the server may destroy the socket with bytes it has not read).
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
    socket.on('close', () => resolve(text));
    socket.setTimeout(10_000, () => {
      reject(new Error('the server neither answered nor closed the connection'));
      socket.destroy();
    });
  });
}

it('finds that this Node records the response in flight on its socket', () => {
  expect({ node: process.version, tracked: nodeTracksSocketResponse() }).toEqual({
    node: process.version,
    tracked: true,
  });
});

it('answers a refused request with the envelope when no response has started on the connection', async () => {
  const text = await exchange('BREW\u0000 / HTTP/1.1\r\nHost: x\r\n\r\n');
  expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
    error: { code: 'bad_request', message: 'Malformed HTTP request' },
  });
});

it('closes the connection without writing when a response is in flight on it', async () => {
  // The first request reaches the handler, which holds its response; the garbage pipelined behind
  // it is refused while that response is the socket's: a status line written now would land in it.
  const text = await exchange('GET / HTTP/1.1\r\nHost: x\r\n\r\nBREW\u0000 / HTTP/1.1\r\n\r\n');
  expect(held.length).toBeGreaterThan(0);
  expect(text).toBe('');
});

it('takes a response to be in flight when this Node records none it can read', () => {
  const socket = new PassThrough();
  expect(mayHaveResponseInFlight(socket, false)).toBe(true);
  expect(mayHaveResponseInFlight(socket, true)).toBe(false);
  Object.assign(socket, { _httpMessage: {} });
  expect(mayHaveResponseInFlight(socket, true)).toBe(true);
});
