import { DEFAULT_TRACE_MODE, settlesWithin, withTimeout, type ArtifactKind, type Capabilities } from '@botfleet/core';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { briefErrorMessage } from './error-message';
import { capturePageScreenshot } from './failure-screenshot';
import { scrubHar } from './network-scrub';
import type { RunSecrets } from './run-secrets';
import type { RunSession } from './run-session';
import { scrubTraceZip } from './trace-scrub';

/** The largest trace a run keeps; a larger one is dropped with a warning. */
export const MAX_TRACE_BYTES = 100 * 1024 * 1024;
/**
 * The largest HAR a run keeps: without bodies a HAR is small, and it is parsed whole to scrub.
 * A trace's network log (the same entries) is bounded by it too.
 */
export const MAX_HAR_BYTES = 32 * 1024 * 1024;
/** How long starting or writing the trace may take (writing zips the snapshots and resources). */
const TRACING_TIMEOUT_MS = 30_000;
/** How long the screenshot after a step may take at most; the run's deadline may cut it shorter. */
export const STEP_SCREENSHOT_TIMEOUT_MS = 3_000;

const TRACE_FILE = 'trace.zip';
const HAR_FILE = 'run.har';

/** How the run ended, as far as its evidence is concerned; null: it keeps none (cancelled, browser died). */
export type EvidenceEnd = { completed: boolean } | null;

export interface RunEvidence {
  /** Where the context records the run's HAR (buildContextOptions' harPath); undefined without `har`. */
  readonly harPath: string | undefined;
  /** Starts the trace on the fresh context, before its first page; a failure is logged, the run goes on. */
  start(context: BrowserContext): Promise<void>;
  /**
   * Before the context closes: keeps the trace, scrubbed, as a `trace` artifact (`always`, or
   * `onFailure` and the run did not complete), else discards it.
   */
  finishTrace(context: BrowserContext, end: EvidenceEnd): Promise<void>;
  /**
   * After the context closed (Playwright writes the HAR on close): keeps the HAR, scrubbed, as a
   * `har` artifact; then deletes the run's evidence directory, whatever happened.
   */
  finish(end: EvidenceEnd): Promise<void>;
}

/**
 * A run's trace and HAR (capabilities.trace, capabilities.har), or null when it records neither.
 * Their files are written into a directory of this run's own inside the browser host's private
 * directory (as downloads.ts does), stored through the worker's session (the program's guarded
 * session is closed by then) and deleted.
 *
 * Secrets (docs/security.md): the HAR and the trace's network log hold what the pages sent, so
 * both are scrubbed before they are kept, in every run: credential headers and cookies read
 * REDACTED (network-scrub.ts). The HAR is also rewritten through the run's RunSecrets (a posted
 * form with a filled password is replaced whole). The rest of a trace cannot be: it records a
 * fill's value, DOM snapshots with input values, request bodies and screenshots, so a run that
 * holds secret values (a filled credential, its profile's cookies) keeps no trace and logs why.
 * What such a run keeps is sealed at rest (sealArtifactsWhileSecret: `session` is that one).
 */
export async function prepareRunEvidence(options: {
  capabilities: Capabilities;
  parentDir: string;
  /** The worker's session, not the program's guarded one. */
  session: RunSession;
  secrets: RunSecrets;
}): Promise<RunEvidence | null> {
  const { capabilities, session, secrets } = options;
  const traceMode = capabilities.trace ?? DEFAULT_TRACE_MODE;
  const har = capabilities.har === true;
  if (traceMode === 'off' && !har) return null;
  const dir = await mkdtemp(join(options.parentDir, 'evidence-'));
  const harPath = har ? join(dir, HAR_FILE) : undefined;
  let tracing = false;

  return {
    harPath,
    async start(context) {
      if (traceMode === 'off') return;
      try {
        await withTimeout(
          context.tracing.start({ screenshots: true, snapshots: true, sources: false }),
          TRACING_TIMEOUT_MS,
          'starting the trace timed out',
        );
        tracing = true;
      } catch (error) {
        session.log('warn', 'runner', `The trace could not be started: ${briefErrorMessage(error)}`);
      }
    },
    async finishTrace(context, end) {
      if (!tracing || end === null) return;
      tracing = false;
      const wanted = traceMode === 'always' || !end.completed;
      if (wanted && !secrets.empty) {
        session.log(
          'warn',
          'runner',
          'The trace was not kept: the run holds secret values (a filled credential, its profile cookies) that a trace would record unredacted',
        );
      }
      if (!wanted || !secrets.empty) {
        await settlesWithin(context.tracing.stop(), TRACING_TIMEOUT_MS);
        return;
      }
      const path = join(dir, TRACE_FILE);
      try {
        await withTimeout(context.tracing.stop({ path }), TRACING_TIMEOUT_MS, 'writing the trace timed out');
      } catch (error) {
        session.log('warn', 'runner', `The trace could not be written: ${briefErrorMessage(error)}`);
        return;
      }
      await keepFile({ session, kind: 'trace', contentType: 'application/zip', path, maxBytes: MAX_TRACE_BYTES }, () =>
        scrubTraceZip(path, { maxBytes: MAX_TRACE_BYTES, maxNetworkBytes: MAX_HAR_BYTES }),
      );
    },
    async finish(end) {
      try {
        if (harPath && end !== null) {
          await keepFile(
            { session, kind: 'har', contentType: 'application/json', path: harPath, maxBytes: MAX_HAR_BYTES },
            () => rewriteHar(harPath, secrets),
          );
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Stores the file as an artifact, once `scrub` has rewritten it, unless it is larger than
 * `maxBytes`. Any failure (the scrub's included) is a warning, and the file is not kept.
 */
async function keepFile(
  file: {
    session: RunSession;
    kind: ArtifactKind;
    contentType: string;
    path: string;
    maxBytes: number;
  },
  scrub: () => Promise<void>,
): Promise<void> {
  const { session, kind, path, maxBytes } = file;
  try {
    const { size } = await stat(path);
    if (size > maxBytes) {
      session.log('warn', 'runner', `The run's ${kind} was not kept: ${size} bytes, more than ${maxBytes}`);
      return;
    }
    await scrub();
    const id = await session.saveArtifact(kind, file.contentType, { path });
    session.log('info', 'runner', `Kept the run's ${kind} (${(await stat(path)).size} bytes) as artifact ${id}`);
  } catch (error) {
    session.log('warn', 'runner', `The run's ${kind} could not be kept: ${briefErrorMessage(error)}`);
  } finally {
    await rm(path, { force: true }).catch(() => undefined);
  }
}

/**
 * Rewrites the HAR scrubbed (scrubHar). Parsed rather than replaced as text: a value with a quote
 * or a backslash reads escaped in the JSON file, and a header is found by its name.
 */
async function rewriteHar(path: string, secrets: RunSecrets): Promise<void> {
  const har: unknown = JSON.parse(await readFile(path, 'utf8'));
  await writeFile(path, JSON.stringify(scrubHar(har, secrets)));
}

/**
 * With `capabilities.stepScreenshots`, keeps a PNG of the page's viewport after a step as a
 * `stepScreenshot` artifact with its index, masked like every screenshot of the run. Bounded by
 * STEP_SCREENSHOT_TIMEOUT_MS and the run's deadline; a screenshot that cannot be taken is a
 * warning and never fails the step.
 */
export async function keepStepScreenshot(page: Page, session: RunSession, stepIndex: number): Promise<void> {
  const timeoutMs = Math.min(STEP_SCREENSHOT_TIMEOUT_MS, session.deadline - Date.now());
  if (timeoutMs <= 0 || page.isClosed() || session.signal?.aborted) return;
  try {
    const png = await capturePageScreenshot(page, { timeoutMs, secrets: session.secrets });
    await session.saveArtifact('stepScreenshot', 'image/png', png, { stepIndex });
  } catch (error) {
    session.log('warn', 'runner', `No screenshot after step ${stepIndex + 1}: ${briefErrorMessage(error)}`);
  }
}
