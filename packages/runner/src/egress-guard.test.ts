import { createEgressGuard } from './egress-guard';
import { runExecution } from './run-execution';
import { runSteps } from './step-interpreter';
import { createMemorySession, useBrowserFixture } from './testing';

describe('egress guard', () => {
  const resolver = (table: Record<string, string[]>) => async (host: string) => {
    const addresses = table[host];
    if (!addresses) throw new Error(`ENOTFOUND ${host}`);
    return addresses;
  };

  it('allows public destinations and refuses private, loopback and link-local ones', async () => {
    const guard = createEgressGuard({
      resolve: resolver({
        'shop.example': ['93.184.216.34'],
        'intranet.example': ['10.0.0.5'],
        'mixed.example': ['93.184.216.34', '127.0.0.1'],
      }),
    });
    const direct = { checkHostnames: true };
    expect(await guard.isAllowed('shop.example', direct)).toBe(true);
    expect(await guard.isAllowed('intranet.example', direct)).toBe(false);
    expect(await guard.isAllowed('mixed.example', direct)).toBe(false);
    expect(await guard.isAllowed('unknown.example', direct)).toBe(false);
    expect(await guard.isAllowed('169.254.169.254', direct)).toBe(false);
    expect(await guard.isAllowed('[::1]', direct)).toBe(false);
    expect(await guard.isAllowed('8.8.8.8', direct)).toBe(true);
    // Behind a proxy, names are the proxy's to resolve; IP literals are still judged.
    expect(await guard.isAllowed('intranet.example', { checkHostnames: false })).toBe(true);
    expect(await guard.isAllowed('127.0.0.1', { checkHostnames: false })).toBe(false);
  });

  describe('in the browser', () => {
    const fixture = useBrowserFixture({
      routes: { '/': '<!doctype html><h1 id="t">public page</h1><img src="http://127.0.0.1:9/internal.png">' },
      // A made-up public name the test resolver calls public, which Chromium maps to the fixture.
      browserArgs: (site) => [`--host-resolver-rules=MAP public.botfleet.test 127.0.0.1:${site.port}`],
    });

    const guard = createEgressGuard({ resolve: resolver({ 'public.botfleet.test': ['93.184.216.34'] }) });
    const run = (targetUrl: string, session = createMemorySession()) =>
      runExecution({
        browserHost: fixture.host,
        targetUrl,
        capabilities: {},
        timeoutMs: 15_000,
        egressGuard: guard,
        session,
        program: (page, s) => runSteps(page, [{ index: 0, action: 'extract', name: 't', selector: '#t' }], s),
      });

    it('fails a bot whose target is a private address, saying why', async () => {
      const session = createMemorySession();
      const outcome = await run(fixture.server.url('/'), session);
      expect(outcome.status).toBe('failed');
      expect(outcome.status === 'failed' && outcome.error).toContain('ERR_BLOCKED_BY_CLIENT');
      expect(session.logs.map((l) => l.message)).toContain(
        `Blocked a request to 127.0.0.1:${fixture.server.port}: not a public address (ALLOW_PRIVATE_NETWORK=false)`,
      );
      expect(fixture.server.requests).toHaveLength(0);
    });

    it('lets a public page load and blocks its requests to private addresses', async () => {
      const session = createMemorySession();
      const outcome = await run('http://public.botfleet.test/', session);
      expect(outcome).toEqual({ status: 'completed', data: { t: 'public page' } });
      expect(session.logs.map((l) => l.message)).toContain(
        'Blocked a request to 127.0.0.1:9: not a public address (ALLOW_PRIVATE_NETWORK=false)',
      );
    });
  });
});
