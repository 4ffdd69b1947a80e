import { waitUntil } from '@botfleet/testkit';
import type { LookupAddress } from 'node:dns';
import type dns from 'node:dns';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { createEgressGuard } from './egress-guard';
import { startEgressProxy, type EgressProxy } from './egress-proxy';
import { runExecution } from './run-execution';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture } from './testing';

/*
 * ALLOW_PRIVATE_NETWORK=false against a page that tries to reach an internal service. The
 * page-level guard is told every name is public (as a DNS answer could say at check time); only
 * the egress proxy, which resolves at connect time, knows `rebind.botfleet.test` points at the
 * internal server. In this test "public" means 127.0.0.1 (the page's server) and the internal
 * service listens on 127.0.0.3, so both run on loopback.
 */

const PAGE_ADDRESS = '127.0.0.1';
const INTERNAL_ADDRESS = '127.0.0.3';

/** The connect-time DNS: what the names really resolve to when Chromium (via the proxy) connects. */
const connectTimeDns = ((
  hostname: string,
  _options: unknown,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => {
  const table: Record<string, string> = {
    'page.botfleet.test': PAGE_ADDRESS,
    'rebind.botfleet.test': INTERNAL_ADDRESS,
  };
  const address = table[hostname];
  if (address) callback(null, [{ address, family: 4 }]);
  else callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
}) as unknown as typeof dns.lookup;

let internal: Server;
let internalPort: number;
let internalConnections = 0;
let proxy: EgressProxy;
const refused: string[] = [];

beforeAll(async () => {
  // Counts TCP connections, so no protocol (HTTP, WebSocket upgrade, anything) can reach it unseen.
  internal = createServer((socket) => {
    internalConnections++;
    socket.end('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret');
  });
  await new Promise<void>((resolve) => internal.listen(0, INTERNAL_ADDRESS, resolve));
  internalPort = (internal.address() as { port: number }).port;
  proxy = await startEgressProxy({
    resolve: connectTimeDns,
    isAllowedAddress: (address) => address === PAGE_ADDRESS,
    onRefused: (destination) => refused.push(destination),
  });
});
// Options from a function: the page names the internal server's port, and the browser the proxy.
const fixture = useBrowserFixture(() => {
  const rebind = `rebind.botfleet.test:${internalPort}`;
  return {
    routes: {
      '/': `<!doctype html><h1 id="t">page</h1>
      <img src="http://${rebind}/pixel.png">
      <script>
        window.attempts = [];
        const settle = (label) => (event) => window.attempts.push(label + ':' + event.type);
        for (const url of ['ws://${rebind}/', 'ws://${INTERNAL_ADDRESS}:${internalPort}/', 'wss://${rebind}/']) {
          const ws = new WebSocket(url);
          ws.onopen = settle(url); ws.onerror = settle(url);
        }
        fetch('http://${rebind}/data').then(settle('fetch'), () => window.attempts.push('fetch:error'));
      </script>`,
    },
    egressProxyUrl: proxy.url,
  };
});
afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => internal.close(resolve));
});

it('lets the page load but nothing in it reaches the internal service: not by rebinding, not by WebSocket', async () => {
  const session = createMemorySession();
  const outcome = await runExecution({
    browserHost: fixture.host,
    targetUrl: `http://page.botfleet.test:${fixture.server.port}/`,
    capabilities: {},
    timeoutMs: 20_000,
    // The page-level check is fooled: it believes every name is public.
    egressGuard: createEgressGuard({ resolve: async () => ['93.184.216.34'] }),
    session,
    program: async (page, s) => {
      await waitUntil(
        async () => (await page.evaluate(() => (window as unknown as { attempts: string[] }).attempts.length)) >= 4,
        { timeoutMs: 15_000, message: 'the page to finish its attempts' },
      );
      return runSteps(page, [{ index: 0, action: 'extract', name: 't', selector: '#t' }], s);
    },
  });

  expect(outcome).toEqual({ status: 'completed', data: { t: 'page' } });
  expect(internalConnections).toBe(0);
  expect(refused).toEqual(
    expect.arrayContaining([`rebind.botfleet.test:${internalPort}`, `${INTERNAL_ADDRESS}:${internalPort}`]),
  );
  // The page itself came through the proxy (Chromium never resolved the made-up name).
  expect(fixture.server.requests.map((r) => r.path)).toContain('/');
});

it('forwards what is allowed, so the refusals above are the policy and not a broken proxy', async () => {
  const status = (path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: Number(new URL(proxy.url).port), path, method: 'GET' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  expect(await status(`http://page.botfleet.test:${fixture.server.port}/`)).toBe(200);
  expect(await status(`http://rebind.botfleet.test:${internalPort}/`)).toBe(403);
  expect(await status(`http://[::1]:${internalPort}/`)).toBe(403);
  expect(internalConnections).toBe(0);
});
