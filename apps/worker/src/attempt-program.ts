import type { Logger, RunOutcome } from '@botfleet/core';
import type { ClaimedExecution } from '@botfleet/db';
import { infrastructureFailureOutcome, type AttemptResult } from '@botfleet/engine';
import { InfrastructureError, runExecution } from '@botfleet/runner';
import { openBrowserSession, type RunBrowserSession } from './browser-session';
import type { DbRunSession } from './db-run-session';
import type { ExecutionRunProcessorDeps } from './execution-run-deps';
import { flushWhileRunning } from './attempt-session';
import type { LoadedBot } from './load-program';

/** What an attempt's program came to, for the engine to decide on. */
export interface ProgramRun {
  result: AttemptResult;
  /** The browser session of the run's profile, whose end state the run may save; null without a profile. */
  browserSession: RunBrowserSession | null;
}

export interface AttemptProgram {
  claimed: ClaimedExecution;
  loaded: LoadedBot;
  session: DbRunSession;
  timeoutMs: number;
  /** Aborted by a cancel message for this run. */
  cancelSignal: AbortSignal;
  maxInfraRetries: number;
  log: Logger;
}

/**
 * Runs the attempt's program in the browser, writing its progress as it goes, and says what
 * became of it and who caused that. Throws SupersededAttemptError when a write found the attempt
 * superseded: it then stopped and writes nothing more.
 */
export async function runAttemptProgram(deps: ExecutionRunProcessorDeps, attempt: AttemptProgram): Promise<ProgramRun> {
  const { claimed, loaded, session, cancelSignal, log } = attempt;
  const { shutdownSignal } = deps;
  // A cancel, the drain deadline, or a write that found the run no longer this attempt's (a
  // newer attempt took it over, or a cancel whose message this worker missed) stops the run.
  const signal = AbortSignal.any([cancelSignal, session.stopped, ...(shutdownSignal ? [shutdownSignal] : [])]);

  let browserSession: RunBrowserSession | null = null;
  if (claimed.profileId) {
    const persist = loaded.manifest.session?.persist ?? 'onSuccess';
    try {
      browserSession = await openBrowserSession(deps.db, deps.secretBox, claimed.profileId, persist);
    } catch (err) {
      const error = `profile_unavailable: ${(err as Error).message}`;
      session.log('error', 'system', error);
      return {
        result: { outcome: { status: 'failed', error, stepIndex: null }, cause: 'deployment', stoppedBy: null },
        browserSession: null,
      };
    }
    const state = browserSession.loaded ? 'saved state loaded' : 'no saved state yet';
    session.log('info', 'system', `Browser session: profile ${claimed.profileId}, ${state} (persist: ${persist})`);
  }

  const stopFlushing = flushWhileRunning(session, log);
  let outcome: RunOutcome;
  let cause: AttemptResult['cause'] = 'bot';
  try {
    outcome = await runExecution({
      browserHost: deps.browserHost,
      targetUrl: loaded.bot.targetUrl,
      capabilities: loaded.manifest.capabilities,
      timeoutMs: attempt.timeoutMs,
      proxyPool: deps.proxyPool,
      adBlocker: deps.adBlocker,
      egressGuard: deps.egressGuard,
      session,
      program: loaded.program,
      signal,
      outputLimits: deps.outputLimits,
      browserState: browserSession?.browserState,
    });
  } catch (err) {
    // Not the bot's doing (Chromium crashed or could not start, or a bug).
    const message = err instanceof Error ? err.message : String(err);
    const infrastructure = err instanceof InfrastructureError;
    session.log('error', 'system', `${infrastructure ? 'Infrastructure failure' : 'Unexpected error'}: ${message}`);
    cause = 'infrastructure';
    outcome = infrastructureFailureOutcome(message, claimed, attempt.maxInfraRetries);
  } finally {
    await stopFlushing();
  }
  session.throwIfSuperseded();
  const cancelled = cancelSignal.aborted || session.stopped.aborted;
  const stoppedBy = cancelled ? 'cancel' : shutdownSignal?.aborted ? 'shutdown' : null;
  return { result: { outcome, cause, stoppedBy }, browserSession };
}
