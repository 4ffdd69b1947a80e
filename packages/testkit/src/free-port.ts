import { createServer } from 'node:net';

/**
 * A loopback port free right now, for a process that must be told its port up front (a port of
 * 0 may mean "off" there). Another process could take it before it is used; tests accept that.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}
