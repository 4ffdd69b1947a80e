import type { OutputBudget } from './output-budget';
import type { RunSecrets } from './run-secrets';
import type { RunSession } from './run-session';

export interface GuardedSession {
  session: RunSession;
  /** After this, the program's late writes are dropped and the session's signal aborts. */
  end(): void;
}

/**
 * Wraps the worker's session for the program: its deadline becomes the run's effective one,
 * every step output and log line is admitted by the run's output budget (the one place outputs
 * are accounted: nothing over a bound reaches the worker's session, see OutputBudget), and once
 * the run has a result (say it timed out while a step still hung) nothing the abandoned program
 * does later can add steps, logs or artifacts to the finished execution. Every step output and log
 * line is redacted first (RunSecrets): no credential value the run filled is ever stored.
 */
export function guardSession(
  session: RunSession,
  deadline: number,
  budget: OutputBudget,
  secrets: RunSecrets,
): GuardedSession {
  const ended = new AbortController();
  const open = () => !ended.signal.aborted;
  return {
    session: {
      params: session.params,
      deadline,
      signal: ended.signal,
      secrets,
      recordStep: (result) => {
        if (!open()) return;
        const redacted = {
          ...result,
          data: secrets.redactData(result.data),
          error: result.error === null ? null : secrets.redact(result.error),
        };
        session.recordStep(budget.admitStep(redacted));
        // Past a bound the run is over at once: the program's next write (say a "step
        // completed" log line for the step just refused) must not land.
        if (budget.error) ended.abort();
      },
      log: (level, source, line) => {
        const message = secrets.redact(line);
        const admitted = open() ? budget.admitLog(message) : null;
        // The line saying logs are cut is the system's, not the program's.
        if (admitted === message) session.log(level, source, admitted);
        else if (admitted !== null) session.log('warn', 'system', admitted);
      },
      saveArtifact: (kind, contentType, content, options) =>
        open()
          ? session.saveArtifact(kind, contentType, content, options)
          : Promise.reject(new Error('The execution has already ended')),
      outputAllowance: () => budget.stepAllowance(),
    },
    end: () => {
      ended.abort();
    },
  };
}

/**
 * The worker's session, with every artifact saved while the run holds secret values (a filled
 * password, its profile's cookies) marked sealed: a screenshot, a download, a HAR or a trace of
 * such a run may show them, so the store keeps it sealed with SECRETS_KEY (docs/security.md).
 * Everything that saves the run's artifacts (the program's guarded session, its evidence, its
 * downloads) saves through this.
 */
export function sealArtifactsWhileSecret(session: RunSession, secrets: RunSecrets): RunSession {
  return {
    ...session,
    saveArtifact: (kind, contentType, content, options) =>
      session.saveArtifact(kind, contentType, content, {
        ...options,
        sealed: options?.sealed === true || !secrets.empty,
      }),
  };
}
