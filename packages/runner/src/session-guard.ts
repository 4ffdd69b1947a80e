import type { OutputBudget } from './output-budget';
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
 * does later can add steps, logs or artifacts to the finished execution.
 */
export function guardSession(session: RunSession, deadline: number, budget: OutputBudget): GuardedSession {
  const ended = new AbortController();
  const open = () => !ended.signal.aborted;
  return {
    session: {
      params: session.params,
      deadline,
      signal: ended.signal,
      recordStep: (result) => {
        if (!open()) return;
        session.recordStep(budget.admitStep(result));
        // Past a bound the run is over at once: the program's next write (say a "step
        // completed" log line for the step just refused) must not land.
        if (budget.error) ended.abort();
      },
      log: (level, source, message) => {
        const admitted = open() ? budget.admitLog(message) : null;
        // The line saying logs are cut is the system's, not the program's.
        if (admitted === message) session.log(level, source, admitted);
        else if (admitted !== null) session.log('warn', 'system', admitted);
      },
      saveArtifact: (kind, contentType, data) =>
        open()
          ? session.saveArtifact(kind, contentType, data)
          : Promise.reject(new Error('The execution has already ended')),
      outputAllowance: () => budget.stepAllowance(),
    },
    end: () => {
      ended.abort();
    },
  };
}
