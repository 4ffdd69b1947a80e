import { createBrowserHost, type BrowserHost } from '../browser-host';
import { resolveChromiumPath } from '../chromium-path';

/** A browser host for tests: the same resolution the worker uses (CHROMIUM_PATH or the system package). */
export function createTestBrowserHost(
  extraArgs: readonly string[] = [],
  options: { egressProxyUrl?: string } = {},
): BrowserHost {
  return createBrowserHost({
    executablePath: resolveChromiumPath({ explicitPath: process.env.CHROMIUM_PATH }),
    extraArgs,
    ...options,
  });
}
