import { waitUntil } from '@botfleet/testkit';
import { createSocket, type Socket } from 'node:dgram';
import type { LookupAddress } from 'node:dns';
import type dns from 'node:dns';
import { createServer, type Server } from 'node:net';
import type { Page } from 'playwright-core';
import { createEgressGuard } from './egress-guard';
import { startEgressProxy, type EgressProxy } from './egress-proxy';
import { runExecution } from './run-execution';
import { createMemorySession, useBrowserFixture, type MemorySession } from './testing';

/*
 * WebRTC with the private network closed, from the hostile side: a page served on loopback asks
 * for a STUN server, a TURN server (UDP and TCP) and forged remote candidates, all pointing at
 * listeners on 127.0.0.1, from its own window and from an iframe it creates synchronously. With
 * the private network closed (egress proxy browser + the run's guard, as the worker runs them)
 * no packet and no connection may arrive; a browser without them (the private network open)
 * shows the same page does reach the listeners, so the test can fail.
 */

const LISTENER = '127.0.0.1';
/** How long the closed runs watch the listeners after the page made its attempts. */
const QUIET_WINDOW_MS = 4_000;

/** The proxy's DNS: the page's made-up name is the loopback server. */
const pageDns = ((
  hostname: string,
  _options: unknown,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => {
  if (hostname === 'page.botfleet.test') callback(null, [{ address: LISTENER, family: 4 }]);
  else callback(Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
}) as unknown as typeof dns.lookup;

let udp: Socket;
let udpPackets = 0;
let tcp: Server;
let tcpConnections = 0;
let proxy: EgressProxy;

beforeAll(async () => {
  udp = createSocket('udp4');
  udp.on('message', () => void udpPackets++);
  await new Promise<void>((resolve) => udp.bind(0, LISTENER, resolve));
  tcp = createServer((socket) => {
    tcpConnections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, LISTENER, resolve));
  // The page's own server is on loopback, so this proxy lets loopback through: WebRTC never
  // uses a proxy anyway, which is the point of the test.
  proxy = await startEgressProxy({ resolve: pageDns, isAllowedAddress: (address) => address === LISTENER });
});
afterAll(async () => {
  await proxy.close();
  udp.close();
  await new Promise((resolve) => tcp.close(resolve));
});

function webRtcPage(): string {
  const udpPort = udp.address().port;
  const tcpPort = (tcp.address() as { port: number }).port;
  return `<!doctype html><body><script>
  async function attempt(PC) {
    const pc = new PC({ iceServers: [
      { urls: 'stun:${LISTENER}:${udpPort}' },
      { urls: 'turn:${LISTENER}:${udpPort}?transport=udp', username: 'u', credential: 'p' },
      { urls: 'turn:${LISTENER}:${tcpPort}?transport=tcp', username: 'u', credential: 'p' },
    ] });
    const peer = new PC();
    pc.createDataChannel('probe');
    await pc.setLocalDescription(await pc.createOffer());
    await peer.setRemoteDescription(pc.localDescription);
    await peer.setLocalDescription(await peer.createAnswer());
    await pc.setRemoteDescription(peer.localDescription);
    await pc.addIceCandidate({ candidate: 'candidate:1 1 udp 2122260223 ${LISTENER} ${udpPort} typ host', sdpMid: '0', sdpMLineIndex: 0 });
    await pc.addIceCandidate({ candidate: 'candidate:2 1 tcp 1518280447 ${LISTENER} ${tcpPort} typ host tcptype passive', sdpMid: '0', sdpMLineIndex: 0 });
    return 'started';
  }
  window.probe = async () => {
    const frame = document.createElement('iframe');
    document.body.appendChild(frame);
    const results = [];
    for (const [where, win] of [['window', window], ['iframe', frame.contentWindow]]) {
      try {
        results.push(where + ': ' + await attempt(win.RTCPeerConnection));
      } catch (error) {
        results.push(where + ': ' + error.name);
      }
    }
    return results;
  };
</script></body>`;
}

const probe = (page: Page) => page.evaluate(() => (window as unknown as { probe(): Promise<string[]> }).probe());

function resetListeners(): void {
  udpPackets = 0;
  tcpConnections = 0;
}

describe('with the private network closed', () => {
  const fixture = useBrowserFixture(() => ({
    routes: { '/webrtc': webRtcPage() },
    browserArgs: (site) => [`--host-resolver-rules=MAP page.botfleet.test ${LISTENER}:${site.port}`],
    egressProxyUrl: proxy.url,
  }));

  function closedRun(session: MemorySession, program: (page: Page) => Promise<unknown>, guarded = true) {
    return runExecution({
      browserHost: fixture.host,
      targetUrl: `http://page.botfleet.test:${fixture.server.port}/webrtc`,
      capabilities: {},
      timeoutMs: 30_000,
      // The page's host counts as public for this test; only WebRTC is under test here.
      ...(guarded ? { egressGuard: createEgressGuard({ resolve: async () => ['93.184.216.34'] }) } : {}),
      session,
      program,
    });
  }

  it('no page, window or synchronously created iframe can send WebRTC packets, and the attempt is logged', async () => {
    resetListeners();
    const session = createMemorySession();
    const outcome = await closedRun(session, async (page) => {
      const results = await probe(page);
      const started = Date.now();
      await waitUntil(() => udpPackets + tcpConnections > 0 || Date.now() - started > QUIET_WINDOW_MS, {
        timeoutMs: QUIET_WINDOW_MS * 3,
      });
      return results;
    });
    expect(outcome).toEqual({ status: 'completed', data: ['window: NotSupportedError', 'iframe: NotSupportedError'] });
    expect({ udpPackets, tcpConnections }).toEqual({ udpPackets: 0, tcpConnections: 0 });
    expect(session.logs).toContainEqual({
      level: 'warn',
      source: 'runner',
      message: 'Blocked RTCPeerConnection: WebRTC is off while ALLOW_PRIVATE_NETWORK=false',
    });
  });

  it('the browser flag alone already keeps UDP (STUN, TURN/UDP, ICE checks) off loopback', async () => {
    resetListeners();
    const session = createMemorySession();
    // Without the run's guard the page has WebRTC: only --webrtc-ip-handling-policy stands.
    const outcome = await closedRun(
      session,
      async (page) => {
        const results = await probe(page);
        const started = Date.now();
        await waitUntil(() => udpPackets > 0 || Date.now() - started > QUIET_WINDOW_MS, {
          timeoutMs: QUIET_WINDOW_MS * 3,
        });
        return results;
      },
      false,
    );
    expect(outcome).toEqual({ status: 'completed', data: ['window: started', 'iframe: started'] });
    expect(udpPackets).toBe(0);
  });
});

describe('with the private network open (the control: the same page does reach the listeners)', () => {
  const fixture = useBrowserFixture(() => ({ routes: { '/webrtc': webRtcPage() } }));

  it('sends STUN and ICE packets to loopback', async () => {
    resetListeners();
    const outcome = await runExecution({
      browserHost: fixture.host,
      targetUrl: fixture.server.url('/webrtc'),
      capabilities: {},
      timeoutMs: 30_000,
      session: createMemorySession(),
      program: async (page) => {
        const results = await probe(page);
        await waitUntil(() => udpPackets > 0, { timeoutMs: 20_000, message: 'a UDP packet from the page' });
        return results;
      },
    });
    expect(outcome).toEqual({ status: 'completed', data: ['window: started', 'iframe: started'] });
    expect(udpPackets).toBeGreaterThan(0);
  });
});
