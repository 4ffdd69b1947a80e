import type { Execution, LogEntry, RunStepEvent, RunStreamEvent } from '@botfleet/sdk';
import { applyRunEvent, NO_RUN, type LiveRun } from './live-run';

/*
 * The run page's reading of a run's stream (docs/live-runs.md): steps by index whatever their
 * order, a new attempt's status dropping the earlier attempt's steps, logs kept across attempts.
 */

const execution = (attempt: number, status: Execution['status'] = 'running'): Execution => ({
  id: 'exe_1',
  botId: 'bot_1',
  botName: 'shop watcher',
  status,
  trigger: 'api',
  params: {},
  botVersion: 1,
  attempt,
  createdAt: 1,
  startedAt: 2,
  completedAt: null,
  duration: null,
});
const step = (index: number, attempt: number): RunStepEvent => ({
  index,
  action: 'click',
  status: 'completed',
  data: null,
  error: null,
  startedAt: 3,
  duration: 4,
  attempt,
});
const log = (message: string, attempt: number): LogEntry => ({
  timestamp: 5,
  level: 'info',
  source: 'runner',
  message,
  attempt,
});

const play = (events: RunStreamEvent[]): LiveRun => events.reduce(applyRunEvent, NO_RUN);

it('keeps steps in index order, each once, and appends logs', () => {
  const run = play([
    { event: 'status', id: 'a', data: execution(1) },
    { event: 'step', id: 'b', data: step(1, 1) },
    { event: 'step', id: 'c', data: step(0, 1) },
    { event: 'step', id: 'd', data: step(1, 1) },
    { event: 'log', id: 'e', data: log('one', 1) },
  ]);
  expect(run.steps.map((s) => s.index)).toEqual([0, 1]);
  expect(run.logs.map((l) => l.message)).toEqual(['one']);
  expect(run.ended).toBe(false);
});

it('drops an earlier attempt’s steps on a later attempt’s status, and ignores late ones', () => {
  const run = play([
    { event: 'status', id: 'a', data: execution(1) },
    { event: 'step', id: 'b', data: step(0, 1) },
    { event: 'step', id: 'c', data: step(1, 1) },
    { event: 'log', id: 'd', data: log('first try', 1) },
    { event: 'status', id: 'e', data: execution(2) },
    { event: 'step', id: 'f', data: step(2, 1) },
    { event: 'step', id: 'g', data: step(0, 2) },
    { event: 'status', id: 'h', data: execution(2, 'completed') },
    { event: 'end', id: 'i', data: { status: 'completed' } },
  ]);
  expect(run.steps.map((s) => [s.index, s.attempt])).toEqual([[0, 2]]);
  expect(run.logs.map((l) => l.message)).toEqual(['first try']);
  expect(run.execution?.status).toBe('completed');
  expect(run.ended).toBe(true);
});
