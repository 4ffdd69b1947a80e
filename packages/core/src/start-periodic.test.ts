import { Writable } from 'node:stream';
import pino from 'pino';
import { startPeriodic } from './start-periodic';

const silent = pino({ level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pass the test ends by hand, counting how many run at once. */
function controlledPasses() {
  const ends: Array<() => void> = [];
  let running = 0;
  let maxRunning = 0;
  let started = 0;
  return {
    pass: () => {
      started++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      return new Promise<void>((resolve) => ends.push(resolve)).finally(() => running--);
    },
    endAll: () => ends.splice(0).forEach((end) => end()),
    get started() {
      return started;
    },
    get running() {
      return running;
    },
    get maxRunning() {
      return maxRunning;
    },
  };
}

it('runs one pass at a time: the timer and runNow join the pass in flight', async () => {
  const passes = controlledPasses();
  const task = startPeriodic({ name: 'test pass', intervalMs: 10, runAtStart: true, logger: silent }, passes.pass);
  expect(passes.started).toBe(1);
  const joined = task.runNow();
  await sleep(60); // several intervals go by while the pass is stuck
  expect(passes.started).toBe(1);
  passes.endAll();
  await joined;
  expect(passes.running).toBe(0);
  // Passes go on, each once the one before it has ended.
  for (const deadline = Date.now() + 2_000; passes.started < 3 && Date.now() < deadline;) {
    await sleep(5);
    passes.endAll();
  }
  expect(passes.started).toBeGreaterThanOrEqual(3);
  expect(passes.maxRunning).toBe(1);
  await task.stop();
});

it('waits one interval for the first pass unless runAtStart', async () => {
  const passes = controlledPasses();
  const startedAt = Date.now();
  const task = startPeriodic({ name: 'test pass', intervalMs: 50, logger: silent }, passes.pass);
  expect(passes.started).toBe(0);
  for (const deadline = Date.now() + 2_000; passes.started === 0 && Date.now() < deadline;) await sleep(5);
  expect(passes.started).toBe(1);
  expect(Date.now() - startedAt).toBeGreaterThanOrEqual(45);
  passes.endAll();
  await task.stop();
});

it('stop waits for the pass in flight, aborts its signal, and no pass runs after it', async () => {
  const passes = controlledPasses();
  let signal: AbortSignal | undefined;
  const task = startPeriodic({ name: 'test pass', intervalMs: 10, runAtStart: true, logger: silent }, (s) => {
    signal = s;
    return passes.pass();
  });
  let stopped = false;
  const stopping = task.stop().then(() => (stopped = true));
  expect(task.stop()).toBe(task.stop());
  await sleep(20);
  expect(signal?.aborted).toBe(true);
  expect(stopped).toBe(false);
  passes.endAll();
  await stopping;
  await task.runNow();
  await sleep(40);
  expect(passes.started).toBe(1);
});

it('logs a failed pass and keeps going', async () => {
  const lines: { level: number; msg: string; err: string }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  let calls = 0;
  const task = startPeriodic(
    { name: 'flaky pass', intervalMs: 5, runAtStart: true, logger: pino({ level: 'info' }, sink) },
    async () => {
      calls++;
      if (calls === 1) throw new Error('database away');
    },
  );
  for (const deadline = Date.now() + 2_000; calls < 3 && Date.now() < deadline;) await sleep(5);
  await task.stop();
  expect(calls).toBeGreaterThanOrEqual(3);
  expect(lines).toEqual([expect.objectContaining({ level: 40, msg: 'flaky pass failed', err: 'database away' })]);
});
