import type { Execution, LogEntry, RunStepEvent, RunStreamEvent } from '@botfleet/sdk';

/** What the run page knows of a run from its event stream (docs/live-runs.md). */
export interface LiveRun {
  /** Undefined until the stream's first `status` event. */
  execution: Execution | undefined;
  steps: RunStepEvent[];
  logs: LogEntry[];
  /** The `end` event came: the run is over and the stream closed. */
  ended: boolean;
}

export const NO_RUN: LiveRun = { execution: undefined, steps: [], logs: [], ended: false };

/**
 * The run after one event. A `status` of a later attempt drops the earlier attempt's steps (the
 * API deleted them; the new attempt's start again at index 0); a `step` replaces the one of its
 * index, so steps stay in index order; logs only ever append.
 */
export function applyRunEvent(run: LiveRun, event: RunStreamEvent): LiveRun {
  switch (event.event) {
    case 'status': {
      const execution = event.data;
      return { ...run, execution, steps: run.steps.filter((step) => step.attempt >= execution.attempt) };
    }
    case 'step': {
      const step = event.data;
      if (run.execution && step.attempt < run.execution.attempt) return run;
      const steps = [...run.steps.filter((other) => other.index !== step.index), step];
      steps.sort((a, b) => a.index - b.index);
      return { ...run, steps };
    }
    case 'log':
      return { ...run, logs: [...run.logs, event.data] };
    case 'end':
      return { ...run, ended: true };
  }
}
