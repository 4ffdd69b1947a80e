import path from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { SANDBOX_LIMITS } from './limits';
import type { HostMessage, ThreadMessage } from './sandbox-protocol';
import { messageOf, type ScriptHost } from './script-host';
import { ScriptError } from './script-error';

/*
 * How the sandbox thread is started, under Jest and under `node --import tsx` alike.
 *
 * The thread's code is TypeScript (sandbox-thread.ts and what it imports). Neither of the
 * module loaders that run this file reaches a worker thread: Jest's loader (with its SWC
 * transform) lives only in the test's own realm, and a Worker does not get tsx's hooks unless
 * it is started with them. So the Worker runs a tiny CommonJS bootstrap (`eval: true`) that
 * registers tsx's CommonJS require hook (`tsx/cjs/api`: synchronous, in the thread itself, with
 * tsx's on-disk transform cache) and then requires the entry. `execArgv: []` keeps the parent's
 * flags out: under `node --import tsx` the thread would otherwise also set up tsx's ESM loader
 * hooks, which run on an extra loader thread per worker and cost startup time for nothing.
 * If these sources are ever compiled to .js, the bootstrap requires the .js entry without tsx.
 */
const BOOTSTRAP = `'use strict';
const { workerData } = require('node:worker_threads');
if (workerData.tsxApi) require(workerData.tsxApi).register();
require(workerData.entry);
`;

function bootstrapData(memoryLimitBytes: number): { entry: string; tsxApi: string | null; memoryLimitBytes: number } {
  const ext = path.extname(__filename);
  return {
    memoryLimitBytes,
    entry: path.join(__dirname, `sandbox-thread${ext}`),
    tsxApi: ext === '.ts' ? require.resolve('tsx/cjs/api') : null,
  };
}

/** The thread's V8 heap: see SANDBOX_LIMITS.threadHeapBaseMb. */
export function threadResourceLimits(memoryLimitBytes: number): ResourceLimits {
  return {
    maxOldGenerationSizeMb: 2 * Math.ceil(memoryLimitBytes / 2 ** 20) + SANDBOX_LIMITS.threadHeapBaseMb,
    maxYoungGenerationSizeMb: SANDBOX_LIMITS.threadYoungGenerationMb,
  };
}

/** The thread needs no secrets: only what tsx and esbuild may read to find their cache. */
function threadEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && (/^(TSX|ESBUILD)_/.test(key) || ['TMPDIR', 'TMP', 'TEMP'].includes(key)))
      env[key] = value;
  }
  return env;
}

interface ThreadListener {
  message(message: ThreadMessage): void;
  exit(error: unknown, code: number): void;
}

/** One Worker, serving one run. */
class SandboxThread {
  readonly worker: Worker;
  /** It loaded its code and QuickJS: a failure after this is the script's. */
  ready = false;
  exited = false;
  private error: unknown = null;
  private listener: ThreadListener | null = null;

  constructor(
    readonly memoryLimitBytes: number,
    resourceLimits: ResourceLimits,
  ) {
    this.worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: bootstrapData(memoryLimitBytes),
      execArgv: [],
      env: threadEnv(),
      resourceLimits,
    });
    this.worker.on('message', (message: ThreadMessage) => {
      if (message.kind === 'ready') this.ready = true;
      else this.listener?.message(message);
    });
    // 'error' (an uncaught exception, or ERR_WORKER_OUT_OF_MEMORY) always comes before 'exit'.
    this.worker.on('error', (error: unknown) => {
      this.error ??= error;
    });
    this.worker.on('exit', (code) => {
      this.exited = true;
      this.listener?.exit(this.error, code);
      this.listener = null;
    });
  }

  attach(listener: ThreadListener): void {
    this.listener = listener;
  }

  post(message: HostMessage): void {
    if (!this.exited) this.worker.postMessage(message);
  }

  /** Stops the thread; nothing it sends afterwards is looked at. */
  stop(): void {
    this.listener = null;
    if (!this.exited) this.worker.terminate().catch(() => undefined);
  }
}

/*
 * Starting a thread (V8 isolate, tsx, QuickJS's Wasm) takes tens of ms, more than a short
 * script run. So one spare thread is started when a run ends, ready for the next run with the
 * same memory limit. Each thread still serves a single run and is terminated after it: the
 * spare only moves the start-up off the next run's critical path. An unused spare is stopped
 * after SANDBOX_LIMITS.spareThreadIdleMs and never keeps the process alive.
 */
let spare: { thread: SandboxThread; idleTimer: NodeJS.Timeout } | null = null;

function takeThread(memoryLimitBytes: number): SandboxThread {
  const current = spare;
  if (current) {
    spare = null;
    clearTimeout(current.idleTimer);
    if (!current.thread.exited && current.thread.memoryLimitBytes === memoryLimitBytes) {
      current.thread.worker.ref();
      return current.thread;
    }
    current.thread.stop();
  }
  return new SandboxThread(memoryLimitBytes, threadResourceLimits(memoryLimitBytes));
}

function startSpare(memoryLimitBytes: number): void {
  if (spare) return;
  const thread = new SandboxThread(memoryLimitBytes, threadResourceLimits(memoryLimitBytes));
  thread.worker.unref();
  const idleTimer = setTimeout(() => {
    if (spare?.thread === thread) spare = null;
    thread.stop();
  }, SANDBOX_LIMITS.spareThreadIdleMs);
  idleTimer.unref();
  spare = { thread, idleTimer };
  thread.attach({
    message: () => undefined,
    exit: () => {
      if (spare?.thread === thread) {
        clearTimeout(spare.idleTimer);
        spare = null;
      }
    },
  });
}

/** Stops the spare thread, if any (for shutdown and tests). */
export function stopSpareSandboxThread(): void {
  const current = spare;
  spare = null;
  if (!current) return;
  clearTimeout(current.idleTimer);
  current.thread.stop();
}

export interface ThreadRun {
  source: string;
  paramsJson: string;
  deadline: number;
  budgetMs: number;
  memoryLimitBytes: number;
  /** Tests only: the thread's V8 heap limits instead of threadResourceLimits(memoryLimitBytes). */
  resourceLimits?: ResourceLimits;
  /**
   * Aborted when the run already has its result (an output past its bound, a cancel): the
   * thread is stopped at once instead of running on, unheard, until the deadline.
   */
  signal?: AbortSignal | undefined;
}

/**
 * Runs a script in its own sandbox thread; `host` serves its page calls and takes its events.
 * The thread is terminated when the run ends, whatever the outcome; at the deadline (plus a
 * short grace for the thread to stop itself) it is terminated whatever it is doing.
 */
export function runInSandboxThread(run: ThreadRun, host: ScriptHost): Promise<unknown> {
  const thread = run.resourceLimits
    ? new SandboxThread(run.memoryLimitBytes, run.resourceLimits)
    : takeThread(run.memoryLimitBytes);
  return new Promise<unknown>((resolve, reject) => {
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => finish(new Error('The run ended before the script did'));
    const finish = (failure: Error | null, value?: unknown): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      thread.stop();
      // Page calls still running on the page are left to end by their own (deadline-clamped)
      // timeouts; their outcomes are dropped, as are any later messages of the thread.
      host.close(failure?.message ?? null);
      if (!run.resourceLimits) startSpare(run.memoryLimitBytes);
      if (failure) reject(failure);
      else resolve(value);
    };

    const armTimer = (): void => {
      const wait = run.deadline + SANDBOX_LIMITS.hardStopGraceMs - Date.now();
      if (wait <= 0) {
        finish(ScriptError.timedOut(run.budgetMs));
        return;
      }
      // setTimeout cannot wait longer than 2^31 - 1 ms; a longer wait re-arms.
      timer = setTimeout(armTimer, Math.min(wait, 2 ** 31 - 1));
    };

    thread.attach({
      message(message) {
        if (finished) return;
        switch (message.kind) {
          case 'call':
            host.callPage(message.op, message.argsJson).then(
              (json) => reply(message.id, json, null),
              (error: unknown) => reply(message.id, null, messageOf(error)),
            );
            return;
          case 'events':
            host.apply(message.events);
            return;
          case 'done':
            finish(null, message.value);
            return;
          case 'failed':
            finish(new ScriptError(message.reason, message.message));
            return;
          case 'ready':
            // Handled when the thread starts (the thread host marks itself ready).
            return;
        }
      },
      exit(error, code) {
        finish(exitFailure(error, code, thread.ready));
      },
    });
    const reply = (id: number, json: string | null, error: string | null): void => {
      if (!finished) thread.post({ kind: 'reply', id, json, error });
    };

    if (thread.exited) {
      finish(new Error('Script sandbox thread exited before the run'));
      return;
    }
    if (run.signal?.aborted) {
      onAbort();
      return;
    }
    run.signal?.addEventListener('abort', onAbort, { once: true });
    armTimer();
    thread.post({
      kind: 'start',
      source: run.source,
      paramsJson: run.paramsJson,
      deadline: run.deadline,
      budgetMs: run.budgetMs,
      memoryLimitBytes: run.memoryLimitBytes,
    });
  });
}

/** Why a thread ended before reporting. */
function exitFailure(error: unknown, code: number, ready: boolean): Error {
  if (isCode(error, 'ERR_WORKER_OUT_OF_MEMORY')) return ScriptError.outOfMemory(error);
  const what = error ? messageOf(error) : `exit code ${code}`;
  // Before it was ready, no script code had run: a fault of the worker, not of the script.
  if (!ready) return new Error(`Script sandbox thread failed to start: ${what}`, { cause: error ?? undefined });
  return new ScriptError('crash', `Script crashed its sandbox: ${what}`, { cause: error ?? undefined });
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
