import type { RunSession } from './run-session';

export interface GuardedSession {
  session: RunSession;
  /** After this, the program's late writes are dropped. */
  end(): void;
}

/**
 * Wraps the worker's session for the program: its deadline becomes the run's effective one,
 * and once the run has a result (say it timed out while a step still hung) nothing the
 * abandoned program does later can add steps, logs or artifacts to the finished execution.
 */
export function guardSession(session: RunSession, deadline: number): GuardedSession {
  let open = true;
  return {
    session: {
      params: session.params,
      deadline,
      recordStep: (result) => {
        if (open) session.recordStep(result);
      },
      log: (level, source, message) => {
        if (open) session.log(level, source, message);
      },
      saveArtifact: (kind, contentType, data) =>
        open
          ? session.saveArtifact(kind, contentType, data)
          : Promise.reject(new Error('The execution has already ended')),
    },
    end: () => {
      open = false;
    },
  };
}
