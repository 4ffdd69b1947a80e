import { isPublicAddress } from '@botfleet/core';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { BrowserContext } from 'playwright-core';

const CACHE_TTL_MS = 30_000;
const MAX_CACHED_HOSTS = 5_000;

/**
 * Decides whether the browser may contact a host, for ALLOW_PRIVATE_NETWORK=false: private,
 * loopback, link-local and other non-public addresses are refused, so a bot cannot read a cloud
 * metadata service or an internal admin page and hand it back as extracted data.
 */
export interface EgressGuard {
  /** `checkHostnames: false` when a proxy resolves names (only IP literals are checked then). */
  isAllowed(hostname: string, options: { checkHostnames: boolean }): Promise<boolean>;
}

export function createEgressGuard(options: { resolve?: (hostname: string) => Promise<string[]> } = {}): EgressGuard {
  const resolve =
    options.resolve ?? (async (hostname: string) => (await lookup(hostname, { all: true })).map((a) => a.address));
  const cache = new Map<string, { allowed: boolean; expires: number }>();

  async function hostnameAllowed(hostname: string): Promise<boolean> {
    const cached = cache.get(hostname);
    if (cached && cached.expires > Date.now()) return cached.allowed;
    let allowed: boolean;
    try {
      const addresses = await resolve(hostname);
      // Every address must be public: Chromium may pick any of them.
      allowed = addresses.length > 0 && addresses.every(isPublicAddress);
    } catch {
      allowed = false; // unresolvable here means Chromium cannot reach it directly either
    }
    if (cache.size >= MAX_CACHED_HOSTS) cache.delete(cache.keys().next().value!);
    cache.set(hostname, { allowed, expires: Date.now() + CACHE_TTL_MS });
    return allowed;
  }

  return {
    async isAllowed(hostname, { checkHostnames }) {
      const bare = hostname.replace(/^\[(.*)\]$/, '$1');
      if (isIP(bare)) return isPublicAddress(bare);
      return checkHostnames ? hostnameAllowed(bare.toLowerCase()) : true;
    },
  };
}

/**
 * Aborts every request of the context to a refused host. Registered after other routes so it
 * runs first (Playwright runs routes in reverse order); allowed requests fall through to them.
 * The check happens before Chromium resolves the name itself, so a DNS answer that changes in
 * between (rebinding) is not caught; workers should still sit on a network without internal
 * reach (see docs/security.md).
 */
export async function installEgressGuard(
  context: BrowserContext,
  guard: EgressGuard,
  options: { checkHostnames: boolean; onBlocked?: (host: string) => void },
): Promise<void> {
  await context.route('**/*', async (route) => {
    let url: URL;
    try {
      url = new URL(route.request().url());
    } catch {
      await route.fallback();
      return;
    }
    if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol) || (await guard.isAllowed(url.hostname, options))) {
      await route.fallback();
      return;
    }
    options.onBlocked?.(url.host);
    await route.abort('blockedbyclient');
  });
}
