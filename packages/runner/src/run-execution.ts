import {
  firstOrDeadline,
  judgeNavigableUrl,
  NAVIGATION_WAIT_UNTIL,
  OutputTooLargeError,
  settlesWithin,
  storageStateValues,
  URL_NOT_ALLOWED,
  withTimeout,
  type StorageState,
  type Capabilities,
  type FailedRunOutcome,
  type RunOutcome,
} from '@botfleet/core';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { installAdBlocking, loadAdBlocker, type AdBlocker } from './ad-blocker';
import { installEgressGuard, type EgressGuard } from './egress-guard';
import type { BrowserHost, BrowserLease } from './browser-host';
import { buildContextOptions, harRecordingOptions, redactProxyUrl } from './context-options';
import { briefErrorMessage, isTimeoutError } from './error-message';
import { executionTimedOutMessage, InfrastructureError, StepFailedError } from './errors';
import { handleDownloads, type RunDownloads } from './downloads';
import { captureFailureScreenshot } from './failure-screenshot';
import { blockedNavigationMessage, installNavigationGuard } from './navigation-guard';
import { watchPageLogs } from './page-log';
import { NO_PROXIES_MESSAGE, type ProxyPool } from './proxy-pool';
import type { RunSession } from './run-session';
import { DEFAULT_OUTPUT_LIMITS, OutputBudget, type OutputLimits } from './output-budget';
import { prepareRunEvidence, type EvidenceEnd, type RunEvidence } from './run-evidence';
import { guardSession, sealArtifactsWhileSecret } from './session-guard';
import { installWebRtcGuard } from './webrtc-guard';
import { PROFILE_SECRET_MIN_LENGTH, RunSecrets } from './run-secrets';

/** What runs on the opened page: recorded steps, or a sandboxed script. Returns the extracted data. */
export type ExecutionProgram = (page: Page, session: RunSession) => Promise<unknown>;

export interface RunExecutionOptions {
  browserHost: BrowserHost;
  targetUrl: string;
  capabilities: Capabilities;
  /** The hard timeout: capabilities.timeout in ms, or the deployment's default (see executionTimeoutMs). */
  timeoutMs: number;
  /** A proxy already chosen by the caller; used as given. */
  proxyUrl?: string | undefined;
  /** Where `capabilities.proxy: true` takes a proxy from when no proxyUrl is given. */
  proxyPool?: ProxyPool | undefined;
  /** The blocklist for `capabilities.adBlocking: true`; the shipped list when omitted. */
  adBlocker?: AdBlocker | undefined;
  /** Refuses private, loopback and link-local destinations (ALLOW_PRIVATE_NETWORK=false); none allows all. */
  egressGuard?: EgressGuard | undefined;
  session: RunSession;
  program: ExecutionProgram;
  /** Aborts the run (the execution was cancelled): it ends at once, without a screenshot. */
  signal?: AbortSignal | undefined;
  /** MAX_STEP_OUTPUT_BYTES and MAX_EXECUTION_OUTPUT_BYTES; the documented defaults when omitted. */
  outputLimits?: OutputLimits | undefined;
  /**
   * The run's browser session (manifest `session`): the profile's state the context starts from,
   * and, when the run may save its end state, where that goes: called once before the context
   * closes, unless the run was cancelled or its browser died.
   */
  browserState?: { initial: StorageState | null; keepEnd?: (state: StorageState) => void } | undefined;
}

/** capabilities.timeout (seconds) or the deployment default, in ms. */
export function executionTimeoutMs(capabilities: Capabilities, defaultTimeoutSeconds: number): number {
  return (capabilities.timeout ?? defaultTimeoutSeconds) * 1000;
}

const CONTEXT_CLOSE_TIMEOUT_MS = 5_000;
/** How long reading the end state for the profile may take (cookies, storage, IndexedDB). */
const END_STATE_TIMEOUT_MS = 10_000;

/**
 * The hard stop fires this long after the deadline. Steps are bounded by the deadline themselves
 * and fail on time with their index recorded; the hard stop is the backstop for a program that
 * ignores the deadline (a hung script), and must not win a tie against a step's own timeout.
 */
const HARD_STOP_GRACE_MS = 500;

/** How the race between the program, the hard stop and the browser's death ended. */
type Settled =
  | { kind: 'completed'; data: unknown }
  | { kind: 'threw'; error: unknown }
  | { kind: 'deadline' }
  | { kind: 'cancelled' }
  | { kind: 'disconnected' };

class NavigationFailed extends Error {}

/**
 * Runs one execution in a fresh browser context: opens targetUrl, runs the program, and returns
 * its outcome. Bot failures (a step, the page) come back as `failed` and the deadline as
 * `timed_out`, both with a screenshot; an aborted run comes back `cancelled`; a browser that
 * crashes or disconnects throws InfrastructureError for the worker to retry. The context is
 * always closed.
 */
export async function runExecution(options: RunExecutionOptions): Promise<RunOutcome> {
  const { browserHost, targetUrl, capabilities } = options;
  const startedAt = Date.now();
  const deadline = Math.min(options.session.deadline, startedAt + options.timeoutMs);
  const timedOutMessage = executionTimedOutMessage(deadline - startedAt);
  // Credential values the run fills, and the profile's cookie and storage values, never reach
  // what the run stores: the guarded session redacts the program's writes, `fail` the error.
  // What it saves while it holds them is sealed at rest.
  const secrets = new RunSecrets(options.session.credentials);
  const session = sealArtifactsWhileSecret(options.session, secrets);
  const initialState = options.browserState?.initial ?? null;
  if (initialState) for (const value of storageStateValues(initialState)) secrets.add(value, PROFILE_SECRET_MIN_LENGTH);
  const fail = (failure: string, stepIndex: number | null = null, screenshot: Buffer | null = null): RunOutcome => {
    const error = secrets.redact(failure);
    session.log('error', 'runner', `Execution failed: ${error}`);
    return { status: 'failed', error, stepIndex, screenshot, sealScreenshot: !secrets.empty };
  };
  const timedOut = (stepIndex: number | null, screenshot: Buffer | null): FailedRunOutcome => {
    session.log('error', 'runner', `Execution failed: ${timedOutMessage}`);
    return { status: 'timed_out', error: timedOutMessage, stepIndex, screenshot, sealScreenshot: !secrets.empty };
  };

  if (options.signal?.aborted) return { status: 'cancelled' };
  // A bot stored before the rule, or written around the API, still opens web pages only.
  const target = judgeNavigableUrl(targetUrl);
  if (!target.allowed) return fail(`${URL_NOT_ALLOWED}: ${target.reason}`);

  let proxyUrl = options.proxyUrl;
  if (!proxyUrl && capabilities.proxy) {
    proxyUrl = options.proxyPool?.next() ?? undefined;
    if (!proxyUrl) return fail(NO_PROXIES_MESSAGE);
  }
  const blocker = capabilities.adBlocking ? (options.adBlocker ?? loadAdBlocker()) : null;

  let contextOptions: BrowserContextOptions;
  try {
    contextOptions = buildContextOptions({ capabilities, proxyUrl, blockServiceWorkers: blocker !== null });
    if (initialState) contextOptions.storageState = initialState;
  } catch (error) {
    return fail(briefErrorMessage(error));
  }

  let lease: BrowserLease;
  try {
    lease = await browserHost.acquire();
  } catch (error) {
    throw new InfrastructureError(`Chromium could not be started: ${briefErrorMessage(error)}`, { cause: error });
  }
  const { browser } = lease;
  let evidence: RunEvidence | null = null;
  let context: BrowserContext;
  try {
    // The HAR is a context option: its path must exist before the context does.
    evidence = await prepareRunEvidence({ capabilities, parentDir: lease.downloadsDir, session, secrets });
    if (evidence?.harPath) contextOptions.recordHar = harRecordingOptions(evidence.harPath);
    context = await browser.newContext(contextOptions);
  } catch (error) {
    await evidence?.finish(null);
    lease.release();
    throw new InfrastructureError(`Could not create a browser context: ${briefErrorMessage(error)}`, { cause: error });
  }
  if (proxyUrl) session.log('info', 'runner', `Routing browser traffic through proxy ${redactProxyUrl(proxyUrl)}`);

  const budget = new OutputBudget(options.outputLimits ?? DEFAULT_OUTPUT_LIMITS);
  const guarded = guardSession(session, deadline, budget, secrets);
  let page: Page | null = null;
  let blockedRequests = 0;
  let onDisconnect: (() => void) | undefined;
  let onAbort: (() => void) | undefined;
  let downloads: RunDownloads | undefined;
  // Whether the context still holds a run's end state worth saving (not cancelled, browser alive).
  let endStateReadable = false;
  let completed = false;

  try {
    // Every frame and popup of the run stays on web documents; each attempt to leave is logged.
    installNavigationGuard(context, (blocked) => session.log('warn', 'runner', blockedNavigationMessage(blocked)));
    // Before the first page, so the trace and the page's logs start with its first request.
    await evidence?.start(context);
    watchPageLogs(context, guarded.session);
    downloads = await handleDownloads(context, {
      keep: capabilities.downloads === true,
      parentDir: lease.downloadsDir,
      session,
    });
    const work = (async () => {
      if (blocker) await installAdBlocking(context, blocker, () => void blockedRequests++);
      if (options.egressGuard) {
        await installEgressGuard(context, options.egressGuard, {
          // Behind a proxy the proxy resolves names; only IP literals can be judged here.
          checkHostnames: !proxyUrl,
          onBlocked: (host) =>
            session.log(
              'warn',
              'runner',
              `Blocked a request to ${host}: not a public address (ALLOW_PRIVATE_NETWORK=false)`,
            ),
        });
        await installWebRtcGuard(context, (what) =>
          session.log('warn', 'runner', `Blocked ${what}: WebRTC is off while ALLOW_PRIVATE_NETWORK=false`),
        );
      }
      page = await context.newPage();
      const navigationStarted = Date.now();
      try {
        await page.goto(targetUrl, { waitUntil: NAVIGATION_WAIT_UNTIL, timeout: Math.max(1, deadline - Date.now()) });
      } catch (error) {
        throw new NavigationFailed(`Could not open ${targetUrl}: ${briefErrorMessage(error)}`, { cause: error });
      }
      session.log('info', 'runner', `Opened ${targetUrl} in ${Date.now() - navigationStarted} ms`);
      return options.program(
        page,
        capabilities.stepScreenshots ? { ...guarded.session, stepScreenshots: true } : guarded.session,
      );
    })();
    // Whichever comes first: the program ends, the hard deadline, the browser dies, a cancel.
    let settled = await firstOrDeadline<Settled>(
      [
        work.then(
          (data): Settled => ({ kind: 'completed', data }),
          (error: unknown): Settled => ({ kind: 'threw', error }),
        ),
        // An output past a bound ends the run at once, whatever the program does next.
        budget.exceeded.then((error): Settled => ({ kind: 'threw', error })),
        new Promise<Settled>((resolve) => {
          onDisconnect = () => resolve({ kind: 'disconnected' });
          browser.once('disconnected', onDisconnect);
        }),
        new Promise<Settled>((resolve) => {
          onAbort = () => resolve({ kind: 'cancelled' });
          if (options.signal?.aborted) onAbort();
          else options.signal?.addEventListener('abort', onAbort, { once: true });
        }),
      ],
      Math.max(0, deadline - Date.now()) + HARD_STOP_GRACE_MS,
      { kind: 'deadline' },
    );
    guarded.end();

    // Whatever the program saw (usually "Target closed"), a dead browser is not the bot's fault.
    if (settled.kind === 'disconnected' || !browser.isConnected()) {
      throw new InfrastructureError('Chromium crashed or disconnected during the execution', {
        cause: settled.kind === 'threw' ? settled.error : undefined,
      });
    }
    if (settled.kind === 'cancelled') return { status: 'cancelled' };
    endStateReadable = true;
    if (settled.kind === 'completed' || settled.kind === 'threw') {
      // The extracted data is stored with the run, so it counts against the run's bound too; an
      // output past a bound wins over whatever the program went on to do.
      const refused = budget.error ?? (settled.kind === 'completed' ? budget.admitData(settled.data) : null);
      if (refused) settled = { kind: 'threw', error: refused };
      else if (settled.kind === 'completed') {
        completed = true;
        return { status: 'completed', data: secrets.redactData(settled.data) };
      }
    }

    const screenshot = await captureFailureScreenshot(page, { secrets });
    if (settled.kind === 'deadline') return timedOut(null, screenshot);
    const { error } = settled;
    if (error instanceof OutputTooLargeError) return fail(error.message, error.stepIndex, screenshot);
    if (error instanceof StepFailedError) {
      return error.deadlineExceeded
        ? timedOut(error.stepIndex, screenshot)
        : fail(error.message, error.stepIndex, screenshot);
    }
    const pastDeadline = Date.now() >= deadline - 50;
    if (pastDeadline && (isTimeoutError(error) || (error instanceof Error && isTimeoutError(error.cause)))) {
      return timedOut(null, screenshot);
    }
    return fail(error instanceof NavigationFailed ? error.message : briefErrorMessage(error), null, screenshot);
  } finally {
    guarded.end();
    if (onDisconnect) browser.off('disconnected', onDisconnect);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    if (blockedRequests > 0) session.log('info', 'runner', `Blocked ${blockedRequests} ad and tracker requests`);
    // What the run leaves behind (its end state for the profile, its trace and HAR) is read from a
    // live context of a run that ended by itself: a cancelled run or a dead browser keeps none.
    const kept = endStateReadable && browser.isConnected();
    const keepEnd = options.browserState?.keepEnd;
    if (keepEnd && kept) await readEndState(context, session, keepEnd);
    const evidenceEnd: EvidenceEnd = kept ? { completed } : null;
    await evidence?.finishTrace(context, evidenceEnd);
    // Downloads still being kept finish (briefly) before the context closes; then the run's
    // download directory goes.
    await downloads?.close();
    await closeContext(context);
    // Playwright writes the HAR as the context closes.
    await evidence?.finish(evidenceEnd);
    // Only now may a browser due for recycling close: this run is out of it.
    lease.release();
  }
}

/** Hands the context's storage state (IndexedDB included) to `keep`; a failure to read it is logged. */
async function readEndState(context: BrowserContext, session: RunSession, keep: (state: StorageState) => void) {
  try {
    const state = await withTimeout(
      context.storageState({ indexedDB: true }),
      END_STATE_TIMEOUT_MS,
      'reading the browser state timed out',
    );
    keep(state as StorageState);
  } catch (error) {
    session.log('warn', 'runner', `The browser state could not be read to save: ${briefErrorMessage(error)}`);
  }
}

async function closeContext(context: BrowserContext): Promise<void> {
  await settlesWithin(context.close(), CONTEXT_CLOSE_TIMEOUT_MS);
}
