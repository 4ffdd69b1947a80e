import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSInstance } from './quickjs-module';
import { QuickJSSandbox, type SandboxBridge } from './quickjs-sandbox';
import type { HostMessage, ThreadMessage } from './sandbox-protocol';
import { ScriptError } from './script-error';

/*
 * The sandbox thread's entry (see sandbox-thread-pool.ts for how it is started). One thread
 * runs one script in one fresh QuickJS instance, then the host terminates it: nothing of a run
 * (Wasm memory, a corrupted instance, a runaway built-in call) survives into the next one.
 *
 * The QuickJS side stays asynchronous: a page call posts a `call` message and hands QuickJS a
 * promise that the host's `reply` settles. Log and step calls are checked here and sent as
 * events in batches; the result (or failure) is the last message of the run.
 */

const port = parentPort;
if (!port) throw new Error('sandbox-thread.ts must run in a worker thread');

// Loaded before the run arrives (a spare thread boots ahead of time). Still fresh: this thread
// and this instance serve exactly one run.
// Its memory may grow a little past the run's limit (the interrupt handler's check, which
// reports it precisely), and no further (see newQuickJSInstance).
const { memoryLimitBytes } = workerData as { memoryLimitBytes: number };
const quickjs = newQuickJSInstance(memoryLimitBytes + Math.max(8 * 2 ** 20, memoryLimitBytes / 8));

const waiting = new Map<number, { resolve: (json: string) => void; reject: (error: Error) => void }>();
let nextCallId = 1;
let started = false;

function post(message: ThreadMessage): void {
  port!.postMessage(message);
}

const bridge: SandboxBridge = {
  callPage(op, argsJson) {
    const id = nextCallId++;
    return new Promise<string>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      post({ kind: 'call', id, op, argsJson });
    });
  },
  deliver(events) {
    post({ kind: 'events', events });
  },
};

port.on('message', (message: HostMessage) => {
  if (message.kind === 'reply') {
    const call = waiting.get(message.id);
    if (!call) return;
    waiting.delete(message.id);
    if (message.error === null) call.resolve(message.json ?? '');
    else call.reject(new Error(message.error));
    return;
  }
  if (message.kind === 'start' && !started) {
    started = true;
    void run(message);
  }
});

quickjs.then(
  () => post({ kind: 'ready' }),
  (error: unknown) => {
    throw error; // Ends the thread; the host reports that it failed to start.
  },
);

async function run(start: Extract<HostMessage, { kind: 'start' }>): Promise<void> {
  let outcome: ThreadMessage;
  try {
    // The Wasm memory is this thread's and goes with it: no dispose() needed, or wanted (an
    // instance that failed may be corrupt, and freeing it can abort).
    const sandbox = new QuickJSSandbox(await quickjs, {
      bridge,
      paramsJson: start.paramsJson,
      deadline: start.deadline,
      budgetMs: start.budgetMs,
      memoryLimitBytes: start.memoryLimitBytes,
    });
    outcome = { kind: 'done', value: await sandbox.run(start.source) };
  } catch (error) {
    const failure =
      error instanceof ScriptError ? error : new ScriptError('crash', `Script crashed its sandbox: ${String(error)}`);
    outcome = { kind: 'failed', reason: failure.reason, message: failure.message };
  }
  post(outcome);
}
