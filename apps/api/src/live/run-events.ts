import type { RunProgress } from '@botfleet/db';
import type { ExecutionView } from '../contracts/executions.contract';
import type { LogEntry, StepOutputView } from '../contracts/execution-results.contract';
import { CLOSED, encodeRunCursor, isEnded, phaseOf, type RunCursor } from './run-cursor';

/** One event of a stream: its name, its id (a cursor) and its JSON data. */
export interface StreamEvent {
  event: string;
  id: string;
  data: unknown;
}

/** How rows become the API's views (the same as GET /executions/:id, its steps and logs). */
export interface RunViews {
  execution(row: RunProgress['execution']): ExecutionView;
  step(step: RunProgress['steps'][number]): StepOutputView;
  log(log: RunProgress['logs'][number]): LogEntry;
}

/**
 * The events that take a stream from `from` to what `progress` holds, and the cursor after them.
 * A new attempt (or a status that is not the end) is announced before the steps and logs that
 * follow it, so a client clears the earlier attempt's steps first; the final status comes after
 * the last output, then `end`. With `partial` (the read stopped at its log limit) the run's end
 * waits for the rest of its logs.
 */
export function runEvents(
  from: RunCursor,
  progress: RunProgress,
  views: RunViews,
  partial: boolean,
): { events: StreamEvent[]; cursor: RunCursor } {
  const row = progress.execution;
  const phase = phaseOf(row.status, row.attempt);
  const cursor: RunCursor = { ...from };
  const events: StreamEvent[] = [];
  const push = (event: string, data: unknown) => events.push({ event, id: encodeRunCursor(cursor), data });
  const announce = () => {
    cursor.phase = phase;
    push('status', views.execution(row));
  };
  if (row.attempt !== cursor.attempt) {
    // The earlier attempt's steps were deleted when this one was claimed: steps start again at 0.
    cursor.attempt = row.attempt;
    cursor.nextStep = 0;
    announce();
  } else if (phase !== cursor.phase && !isEnded(phase)) {
    announce();
  }
  for (const step of progress.steps) {
    cursor.nextStep = step.index + 1;
    push('step', { ...views.step(step), attempt: Math.max(row.attempt, 1) });
  }
  for (const log of progress.logs) {
    cursor.lastLogId = log.id;
    push('log', views.log(log));
  }
  if (isEnded(phase) && !partial) {
    if (!isEnded(cursor.phase)) announce();
    cursor.phase = CLOSED;
    push('end', { status: row.status });
  }
  return { events, cursor };
}
