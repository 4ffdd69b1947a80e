import type { RunProgress } from '@botfleet/db';
import { decodeRunCursor, START, type RunCursor } from './run-cursor';
import { runEvents, type RunViews } from './run-events';

/* The order a stream's events come in, from what one read found. */

type Row = RunProgress['execution'];
const views: RunViews = {
  execution: (row) => ({ status: row.status, attempt: row.attempt }) as unknown as ReturnType<RunViews['execution']>,
  step: (step) => ({ index: step.index }) as unknown as ReturnType<RunViews['step']>,
  log: (log) => ({ message: log.message }) as unknown as ReturnType<RunViews['log']>,
};

function progress(row: Partial<Row>, steps: number[] = [], logs: number[] = []): RunProgress {
  const execution = { status: 'running', attempt: 1, ...row } as Row;
  return {
    execution,
    position: { attempt: execution.attempt, nextStep: 0, lastLogId: 0n },
    steps: steps.map((index) => ({ index }) as RunProgress['steps'][number]),
    logs: logs.map((id) => ({ id: BigInt(id), message: `line ${id}` }) as RunProgress['logs'][number]),
  };
}

const names = (r: ReturnType<typeof runEvents>) =>
  r.events.map((e) => `${e.event}${e.event === 'step' ? (e.data as { index: number }).index : ''}`);

it('announces a running run first, its final status after its last output, then the end', () => {
  const live = runEvents(START, progress({}, [0, 1], [7]), views, false);
  expect(names(live)).toEqual(['status', 'step0', 'step1', 'log']);
  expect(live.cursor).toEqual({ attempt: 1, nextStep: 2, lastLogId: 7n, phase: 1 });
  const ended = runEvents(live.cursor, progress({ status: 'completed' }, [2], [8]), views, false);
  expect(names(ended)).toEqual(['step2', 'log', 'status', 'end']);
  // Each event's id is the cursor after it; the end's is its own, past the final status's.
  expect(ended.events.map((e) => e.id)).toEqual(['1.3.7.1', '1.3.8.1', '1.3.8.3', '1.3.8.4']);
  // Resuming from the final status gives the end, and from the end the end again (then the stream closes).
  const afterStatus = decodeRunCursor('1.3.8.3')!;
  const resumed = runEvents(afterStatus, progress({ status: 'completed' }), views, false);
  expect(resumed.events).toEqual([{ event: 'end', id: '1.3.8.4', data: { status: 'completed' } }]);
  expect(runEvents(resumed.cursor, progress({ status: 'completed' }), views, false).events).toEqual(resumed.events);
});

it('starts a new attempt with its status, steps again from 0', () => {
  const from: RunCursor = { attempt: 1, nextStep: 4, lastLogId: 9n, phase: 2 };
  const next = runEvents(from, progress({ attempt: 2 }, [0]), views, false);
  expect(names(next)).toEqual(['status', 'step0']);
  expect(next.cursor).toEqual({ attempt: 2, nextStep: 1, lastLogId: 9n, phase: 1 });
});

it('holds the end back while a read stopped at its log limit', () => {
  const from: RunCursor = { attempt: 1, nextStep: 0, lastLogId: 0n, phase: 1 };
  const partial = runEvents(from, progress({ status: 'failed' }, [], [1, 2]), views, true);
  expect(names(partial)).toEqual(['log', 'log']);
  expect(names(runEvents(partial.cursor, progress({ status: 'failed' }, [], [3]), views, false))).toEqual([
    'log',
    'status',
    'end',
  ]);
});

it('says nothing when nothing changed', () => {
  const at: RunCursor = { attempt: 1, nextStep: 2, lastLogId: 5n, phase: 1 };
  expect(runEvents(at, progress({}), views, false)).toEqual({ events: [], cursor: at });
});
