import { settlesWithin } from '@botfleet/core';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { registerSelectorEngines } from './child-frame-engine';
import { readChromiumRssBytes } from './chromium-rss';
import { guardAgainstAnswersAfterDispose } from './playwright-dispatch-guard';
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
 * `--webrtc-ip-handling-policy` is the switch this Chromium honours: with
 * `--force-webrtc-ip-handling-policy` instead, a page's ICE checks still reached a STUN server and
 * a forged candidate on 127.0.0.1 (webrtc-guard.test.ts shows both the leak and the fix). It
 * stops UDP only; runs with the private network closed also lose RTCPeerConnection entirely
 * (webrtc-guard.ts), which stops WebRTC over TCP as well.
 */
const EGRESS_PROXY_ARGS: readonly string[] = ['--webrtc-ip-handling-policy=disable_non_proxied_udp', '--disable-quic'];

export interface BrowserHostOptions {
  executablePath: string;
  extraArgs?: readonly string[];
  /** Every context's traffic goes through this proxy unless the context names its own. */
  egressProxyUrl?: string;
  logger?: RunnerLogger;
  /** Launch timeout; Playwright's default (3 min) is far too patient for a worker. */
  launchTimeoutMs?: number;
  /** Told each time a browser is replaced: lost (crashed), or recycled after its runs or memory (for a metric). */
  onRestart?: (reason: BrowserRestartReason) => void;
  /** BROWSER_RECYCLE_AFTER_RUNS: a browser that has served this many runs is replaced between runs. */
  recycleAfterRuns?: number;
  /** BROWSER_MAX_RSS_MB: a browser whose processes use more memory than this is replaced between runs. */
  maxRssMb?: number;
  /** Reads the memory the host's Chromium processes use (default: /proc; null where unknown). For tests. */
  readRssBytes?: () => Promise<number | null>;
}

export type BrowserRestartReason = 'disconnected' | 'runs' | 'memory';

/** A run's hold on the browser; release it once the run's context is closed. */
export interface BrowserLease {
  readonly browser: Browser;
  /**
   * Where this browser puts downloads: a directory private to this process (mode 0700), not
   * Playwright's shared /tmp/playwright-artifacts-*. Runs keep their downloads in their own
   * directories inside it (downloads.ts); it is deleted when the host closes.
   */
  readonly downloadsDir: string;
  release(): void;
}

/** How often the memory of the browser is read at most: /proc walks are cheap, not free. */
const RSS_CHECK_INTERVAL_MS = 5_000;

export interface BrowserHost {
  /** The process's one Chromium, launched (or relaunched after a crash) on demand. */
  getBrowser(): Promise<Browser>;
  /**
   * The browser for one run. When the current browser is due for recycling (runs served, memory)
   * the run gets a fresh one instead; the old one closes once its last run releases it, so
   * recycling never cuts a run short.
   */
  acquire(): Promise<BrowserLease>;
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
  // Set when a browser died under us, so the next launch counts as a restart.
  let lost = false;
  // Runs served and runs in flight per browser; retired browsers close when their last run ends.
  const usage = new Map<Browser, { served: number; active: number }>();
  const retired = new Set<Browser>();
  let rssCheckedAt = 0;
  // Made with the first launch (mkdtemp: mode 0700, a name no other process can predict).
  let downloadsDir: string | null = null;

  async function recycleReason(current: Browser): Promise<BrowserRestartReason | null> {
    const served = usage.get(current)?.served ?? 0;
    if (options.recycleAfterRuns !== undefined && served >= options.recycleAfterRuns) return 'runs';
    if (options.maxRssMb === undefined || Date.now() - rssCheckedAt < RSS_CHECK_INTERVAL_MS) return null;
    rssCheckedAt = Date.now();
    const rss = await (options.readRssBytes ?? readChromiumRssBytes)().catch(() => null);
    return rss !== null && rss > options.maxRssMb * 1024 * 1024 ? 'memory' : null;
  }

  function retire(old: Browser, reason: BrowserRestartReason): void {
    if (browser === old) browser = null;
    retired.add(old);
    logger.info(
      { reason, served: usage.get(old)?.served ?? 0 },
      'Chromium recycled; the old one closes after its runs',
    );
    options.onRestart?.(reason);
    closeIfIdle(old);
  }

  function closeIfIdle(old: Browser): void {
    if (!retired.has(old) || (usage.get(old)?.active ?? 0) > 0) return;
    usage.delete(old);
    void settlesWithin(
      old.close().catch((error: unknown) => logger.warn({ err: error }, 'Closing a recycled Chromium failed')),
      CLOSE_TIMEOUT_MS,
    ).finally(() => retired.delete(old));
  }

  async function launch(): Promise<Browser> {
    const started = Date.now();
    // Before any context exists: steps' frame paths use botfleet's own selector engine.
    await registerSelectorEngines();
    downloadsDir ??= await mkdtemp(join(tmpdir(), 'botfleet-downloads-'));
    const launched = await chromium.launch({
      executablePath: options.executablePath,
      headless: true,
      args,
      downloadsPath: downloadsDir,
      ...(options.egressProxyUrl ? { proxy: { server: options.egressProxyUrl, bypass: '<-loopback>' } } : {}),
      timeout: options.launchTimeoutMs ?? 30_000,
      // The app's shutdown registry closes the browser after in-flight runs finish; Playwright's
      // own signal handlers would kill it first. Playwright still kills it when Node exits.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    // An answer naming what a close disposed would otherwise crash the process (see the guard).
    guardAgainstAnswersAfterDispose(launched);
    launched.on('disconnected', () => {
      if (browser === launched) browser = null;
      usage.delete(launched);
      // A recycled browser closing is planned, not lost.
      if (retired.delete(launched)) return;
      if (!closed) lost = true;
      if (!closed)
        logger.warn(
          { executablePath: options.executablePath },
          'Chromium disconnected; it will be relaunched on demand',
        );
    });
    logger.info({ version: launched.version(), ms: Date.now() - started }, 'Chromium launched');
    return launched;
  }

  const host: BrowserHost = {
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
          if (lost) {
            lost = false;
            options.onRestart?.('disconnected');
          }
          return launched;
        })
        .finally(() => {
          launching = null;
        });
      return launching;
    },

    async acquire() {
      const current = browser?.isConnected() ? browser : null;
      if (current && !launching) {
        const reason = await recycleReason(current);
        if (reason && browser === current) retire(current, reason);
      }
      const leased = await host.getBrowser();
      const use = usage.get(leased) ?? { served: 0, active: 0 };
      usage.set(leased, use);
      use.served++;
      use.active++;
      let released = false;
      return {
        browser: leased,
        // Set by the launch getBrowser just awaited.
        downloadsDir: downloadsDir!,
        release() {
          if (released) return;
          released = true;
          use.active--;
          closeIfIdle(leased);
        },
      };
    },

    async close() {
      closed = true;
      // Runs still holding a recycled browser are over by now (the worker drains first).
      await Promise.all(
        [...retired].map((old) =>
          settlesWithin(
            old.close().catch(() => undefined),
            CLOSE_TIMEOUT_MS,
          ),
        ),
      );
      const pending = launching ? await launching.catch(() => null) : null;
      const current = browser ?? pending;
      browser = null;
      if (current) {
        // browser.close() waits for the process to exit (Playwright kills it if the protocol close
        // fails), so no Chromium process outlives the host. The timer only guards a wedged pipe.
        const closing = current
          .close()
          .catch((error: unknown) => logger.warn({ err: error }, 'Closing Chromium failed'));
        if (!(await settlesWithin(closing, CLOSE_TIMEOUT_MS)))
          logger.error({}, `Chromium did not close within ${CLOSE_TIMEOUT_MS} ms`);
      }
      // Synchronous: close() must settle in the same turn as the launch it waited for, so a
      // caller's pending getBrowser() rejection is handled before Node looks for unhandled ones.
      if (downloadsDir) rmSync(downloadsDir, { recursive: true, force: true });
    },
  };
  return host;
}
