import { settlesWithin } from '@botfleet/core';
import { chromium, type Browser } from 'playwright-core';
import { silentLogger, type RunnerLogger } from './logger';

/** Flags every launch gets: no sandbox (containers), no GPU, and no background traffic of Chromium's own. */
export const BASE_CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const CLOSE_TIMEOUT_MS = 10_000;

/**
 * With an egress proxy, nothing may leave around it: loopback is proxied too (Chromium bypasses
 * it by default), WebRTC may not send UDP outside the proxy, and QUIC (UDP) is off.
 */
const EGRESS_PROXY_ARGS: readonly string[] = [
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-quic',
];

export interface BrowserHostOptions {
  executablePath: string;
  extraArgs?: readonly string[];
  /** Every context's traffic goes through this proxy unless the context names its own. */
  egressProxyUrl?: string;
  logger?: RunnerLogger;
  /** Launch timeout; Playwright's default (3 min) is far too patient for a worker. */
  launchTimeoutMs?: number;
}

export interface BrowserHost {
  /** The process's one Chromium, launched (or relaunched after a crash) on demand. */
  getBrowser(): Promise<Browser>;
  /** Closes the browser and waits for its processes to exit. Later getBrowser calls reject. */
  close(): Promise<void>;
}

/**
 * One Chromium per process, shared by every execution (each gets its own context). Launching
 * costs ~0.5 s; a context costs ~20 ms, so the browser is kept and only replaced when it dies.
 */
export function createBrowserHost(options: BrowserHostOptions): BrowserHost {
  const logger = options.logger ?? silentLogger;
  const args = [
    ...BASE_CHROMIUM_ARGS,
    ...(options.egressProxyUrl ? EGRESS_PROXY_ARGS : []),
    ...(options.extraArgs ?? []),
  ];
  let browser: Browser | null = null;
  let launching: Promise<Browser> | null = null;
  let closed = false;

  async function launch(): Promise<Browser> {
    const started = Date.now();
    const launched = await chromium.launch({
      executablePath: options.executablePath,
      headless: true,
      args,
      ...(options.egressProxyUrl ? { proxy: { server: options.egressProxyUrl, bypass: '<-loopback>' } } : {}),
      timeout: options.launchTimeoutMs ?? 30_000,
      // The app's shutdown registry closes the browser after in-flight runs finish; Playwright's
      // own signal handlers would kill it first. Playwright still kills it when Node exits.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    launched.on('disconnected', () => {
      if (browser === launched) browser = null;
      if (!closed)
        logger.warn(
          { executablePath: options.executablePath },
          'Chromium disconnected; it will be relaunched on demand',
        );
    });
    logger.info({ version: launched.version(), ms: Date.now() - started }, 'Chromium launched');
    return launched;
  }

  return {
    async getBrowser() {
      if (closed) throw new Error('Browser host is closed');
      if (browser?.isConnected()) return browser;
      // Concurrent callers share one launch instead of starting a browser each.
      launching ??= launch()
        .then(async (launched) => {
          // close() was called while launching: it awaits this promise, so close here too.
          if (closed) {
            await launched.close().catch(() => undefined);
            throw new Error('Browser host is closed');
          }
          browser = launched;
          return launched;
        })
        .finally(() => {
          launching = null;
        });
      return launching;
    },

    async close() {
      closed = true;
      const pending = launching ? await launching.catch(() => null) : null;
      const current = browser ?? pending;
      browser = null;
      if (!current) return;
      // browser.close() waits for the process to exit (Playwright kills it if the protocol close
      // fails), so no Chromium process outlives the host. The timer only guards a wedged pipe.
      const closing = current.close().catch((error: unknown) => logger.warn({ err: error }, 'Closing Chromium failed'));
      if (!(await settlesWithin(closing, CLOSE_TIMEOUT_MS)))
        logger.error({}, `Chromium did not close within ${CLOSE_TIMEOUT_MS} ms`);
    },
  };
}
