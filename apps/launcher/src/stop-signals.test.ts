import { EventEmitter } from 'node:events';
import { onStopSignals, REPEAT_WINDOW_MS, signalExitCode, STOP_SIGNALS, type StopSignal } from './stop-signals';

/*
 * The counting rule alone, on an emitter and a clock of the test's own. That real signals to a
 * real process group keep a run in flight alive is stop-signals.e2e.test.ts's job.
 */
function listen() {
  const source = new EventEmitter();
  let now = 1_000;
  const calls: [string, StopSignal][] = [];
  const dispose = onStopSignals(
    {
      stop: (signal) => calls.push(['stop', signal]),
      repeated: (signal) => calls.push(['repeated', signal]),
      insist: (signal) => calls.push(['insist', signal]),
    },
    { source, now: () => now },
  );
  const send = (signal: StopSignal, afterMs = 0) => {
    now += afterMs;
    source.emit(signal, signal);
  };
  return { source, calls, send, dispose };
}

it('counts copies of one stop, whichever signals they are, as one', () => {
  const { calls, send } = listen();
  send('SIGTERM');
  send('SIGTERM', 5);
  send('SIGINT', 5);
  send('SIGTERM', REPEAT_WINDOW_MS - 10);
  expect(calls).toEqual([
    ['stop', 'SIGTERM'],
    ['repeated', 'SIGTERM'],
    ['repeated', 'SIGINT'],
    ['repeated', 'SIGTERM'],
  ]);
});

it('stops at once on a signal sent after the window, and on every one after it', () => {
  const { calls, send } = listen();
  send('SIGINT');
  send('SIGINT', REPEAT_WINDOW_MS + 1);
  send('SIGHUP', 1);
  expect(calls).toEqual([
    ['stop', 'SIGINT'],
    ['insist', 'SIGINT'],
    ['insist', 'SIGHUP'],
  ]);
});

it('listens for every stop signal until disposed, and for no other', () => {
  const { source, calls, send, dispose } = listen();
  for (const signal of STOP_SIGNALS) expect(source.listenerCount(signal)).toBe(1);
  source.emit('SIGUSR2', 'SIGUSR2');
  expect(calls).toEqual([]);
  send('SIGHUP');
  expect(calls).toEqual([['stop', 'SIGHUP']]);
  dispose();
  for (const signal of STOP_SIGNALS) expect(source.listenerCount(signal)).toBe(0);
});

it('exits with the status a shell reports for the signal', () => {
  expect(signalExitCode('SIGINT')).toBe(130);
  expect(signalExitCode('SIGTERM')).toBe(143);
  expect(signalExitCode('SIGHUP')).toBe(129);
});
