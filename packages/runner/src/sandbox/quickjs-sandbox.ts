import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten';
import { Scope } from 'quickjs-emscripten';
import { SANDBOX_LIMITS } from './limits';
import { PAGE_OPS } from './page-ops';
import { buildPrelude } from './prelude';
import type { ServiceEvent } from './sandbox-protocol';
import { ScriptError } from './script-error';
import { ScriptServices } from './script-services';
import { WakeSignal } from './wake-signal';

/** The part of a QuickJS Wasm module the sandbox uses (tests pass a leak-checking wrapper). */
export type QuickJSModuleLike = Pick<QuickJSWASMModule, 'newRuntime' | 'getWasmMemory'>;

/**
 * How the sandbox reaches its host (ScriptHost): directly when both share a thread (tests), by
 * messages from the sandbox thread otherwise. Only JSON text and plain events cross.
 */
export interface SandboxBridge {
  /** A page call: resolves to the result as JSON text ('' for undefined), rejects with a message for the script. */
  callPage(op: string, argsJson: string): Promise<string>;
  /** The script's log and step events, in order. */
  deliver(events: ServiceEvent[]): void;
}

export interface SandboxSettings {
  bridge: SandboxBridge;
  /** The trigger params as JSON text. */
  paramsJson: string;
  /** Unix ms at which the script is stopped. */
  deadline: number;
  /** What the timeout message reports. */
  budgetMs: number;
  memoryLimitBytes: number;
}

const OUT_OF_MEMORY = 'InternalError: out of memory';

/**
 * One script run in one QuickJS runtime. The script only ever sees two host functions that
 * take and return JSON text (see prelude.ts); everything else it can reach lives in the Wasm
 * heap. Host promises are bridged with QuickJS deferred promises, and the run loop drives
 * QuickJS's job queue each time one settles.
 */
export class QuickJSSandbox {
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly handles = new Scope();
  private readonly pending = new Set<QuickJSDeferredPromise>();
  private readonly signal = new WakeSignal();
  private readonly services: ScriptServices;
  private describeFn: QuickJSHandle | null = null;
  private interrupted = false;
  private memoryExceeded = false;
  private readonly heapGrown: () => boolean;
  private closed = false;
  /** A host exception that escaped QuickJS: the Wasm instance may be corrupt. */
  private crash: unknown = null;
  /** Set when the instance must be dropped whole rather than disposed (see dispose). */
  private tainted = false;

  constructor(
    quickjs: QuickJSModuleLike,
    private readonly settings: SandboxSettings,
  ) {
    this.services = new ScriptServices((events) => settings.bridge.deliver(events));
    // QuickJS's own limit only sees part of the heap under Emscripten (malloc_usable_size is 0
    // there, so big arrays and strings go uncounted). The Wasm memory is this run's alone, so
    // its growth is the true measure; the interrupt handler polls it.
    const wasmMemory = quickjs.getWasmMemory();
    const heapCeiling = wasmMemory.buffer.byteLength + settings.memoryLimitBytes;
    this.heapGrown = () => wasmMemory.buffer.byteLength > heapCeiling;
    this.runtime = quickjs.newRuntime();
    this.runtime.setMemoryLimit(settings.memoryLimitBytes);
    this.runtime.setMaxStackSize(SANDBOX_LIMITS.maxStackBytes);
    this.runtime.setInterruptHandler(() => {
      if (this.heapGrown()) this.memoryExceeded = true;
      else if (Date.now() >= settings.deadline) this.interrupted = true;
      return this.memoryExceeded || this.interrupted;
    });
    this.runtime.setModuleLoader(() => ({ error: new Error('scripts cannot import modules') }));
    this.context = this.runtime.newContext();
  }

  /** Runs the module's default export and returns its result, parsed from JSON. */
  async run(source: string): Promise<unknown> {
    try {
      const api = this.createApi();
      const runFn = this.handles.manage(this.context.getProp(api, 'run'));
      const namespace = this.evaluate(source);
      const result = this.handles.manage(
        this.unwrap(this.context.callFunction(runFn, this.context.undefined, namespace)),
      );
      return await this.settle(result);
    } catch (error) {
      throw this.toScriptError(error);
    } finally {
      this.flushServices();
    }
  }

  /** Frees every handle, then the context and runtime. Safe to call more than once. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    // A corrupt instance (crash), or one that ran out of memory (QuickJS's out-of-memory paths
    // can leave objects behind, and freeing the runtime then aborts), is dropped whole and left
    // to the garbage collector: it is this run's alone.
    if (this.crash !== null || this.tainted) return;
    try {
      for (const deferred of this.pending) deferred.dispose();
      this.pending.clear();
      this.handles.dispose();
      this.context.dispose();
      this.runtime.dispose();
    } catch (error) {
      this.settings.bridge.deliver([
        { type: 'warning', message: `Script sandbox cleanup failed: ${messageOf(error)}` },
      ]);
    }
  }

  private createApi(): QuickJSHandle {
    const ctx = this.context;
    const factory = this.handles.manage(
      this.unwrap(
        ctx.evalCode(buildPrelude([...PAGE_OPS.keys()]), 'botfleet-prelude.js', { type: 'global', strict: true }),
      ),
    );
    const callHost = this.handles.manage(ctx.newFunction('callHost', (op, args) => this.callHost(op, args)));
    const callHostAsync = this.handles.manage(
      ctx.newFunction('callHostAsync', (op, args) => this.callHostAsync(op, args)),
    );
    const params = this.handles.manage(ctx.newString(this.settings.paramsJson));
    const api = this.handles.manage(
      this.unwrap(ctx.callFunction(factory, ctx.undefined, callHost, callHostAsync, params)),
    );
    this.describeFn = this.handles.manage(ctx.getProp(api, 'describe'));
    return api;
  }

  private evaluate(source: string): QuickJSHandle {
    return this.handles.manage(
      this.unwrap(this.context.evalCode(source, 'script.js', { type: 'module', strict: true })),
    );
  }

  private callHost(opHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    const [op, args] = this.readCall(opHandle, argsHandle);
    return this.context.newString(encode(this.services.call(op, args)));
  }

  private callHostAsync(opHandle: QuickJSHandle, argsHandle: QuickJSHandle): QuickJSHandle {
    const [op, , argsJson] = this.readCall(opHandle, argsHandle);
    if (!PAGE_OPS.has(op)) throw new Error(`page.${op} is not a function`);
    if (this.pending.size >= SANDBOX_LIMITS.maxPendingPageCalls) {
      throw new Error(`at most ${SANDBOX_LIMITS.maxPendingPageCalls} page calls may be in flight at once`);
    }
    const deferred = this.context.newPromise();
    this.pending.add(deferred);
    // Starts in a microtask: the host then runs on a fresh stack, never under the script's.
    Promise.resolve()
      .then(() => this.settings.bridge.callPage(op, argsJson))
      .then(
        (json) => this.settleHostCall(deferred, json, null),
        (error: unknown) => this.settleHostCall(deferred, null, messageOf(error)),
      );
    return deferred.handle;
  }

  private readCall(opHandle: QuickJSHandle, argsHandle: QuickJSHandle): [string, unknown[], string] {
    if (this.context.typeof(opHandle) !== 'string' || this.context.typeof(argsHandle) !== 'string') {
      throw new Error('bad host call');
    }
    // The text is copied into this thread's V8 heap: check the Wasm heap and the length first,
    // so a script cannot push more through a host call than its memory limit allows (between
    // interrupt checks a built-in call can grow the Wasm heap far past it).
    if (this.heapGrown()) {
      this.memoryExceeded = true;
      throw new Error('out of memory');
    }
    const length = this.context.getProp(argsHandle, 'length').consume((l) => this.context.getNumber(l));
    if (!(length <= SANDBOX_LIMITS.maxTransferChars)) {
      throw new Error(`the arguments are longer than ${SANDBOX_LIMITS.maxTransferChars} characters`);
    }
    const argsJson = this.context.getString(argsHandle);
    const args: unknown = JSON.parse(argsJson);
    if (!Array.isArray(args)) throw new Error('bad host call');
    return [this.context.getString(opHandle), args, argsJson];
  }

  private settleHostCall(deferred: QuickJSDeferredPromise, json: string | null, error: string | null): void {
    this.pending.delete(deferred);
    if (this.closed || this.crash !== null) return;
    try {
      if (json !== null && json.length > SANDBOX_LIMITS.maxTransferChars) {
        error = `the result is larger than ${SANDBOX_LIMITS.maxTransferChars} characters`;
      }
      const value =
        error === null
          ? this.context.newString(json ?? '')
          : this.context.newError({ name: 'Error', message: error.slice(0, SANDBOX_LIMITS.maxErrorMessageChars) });
      if (error === null) deferred.resolve(value);
      else deferred.reject(value);
      value.dispose();
    } catch (crash) {
      this.crash = crash;
    } finally {
      deferred.dispose();
      this.signal.notify();
    }
  }

  /** Drives QuickJS's job queue until the script's promise settles. */
  private async settle(promise: QuickJSHandle): Promise<unknown> {
    for (;;) {
      if (this.crash !== null) throw this.crash;
      if (Date.now() >= this.settings.deadline) throw ScriptError.timedOut(this.settings.budgetMs);
      const jobs = this.runtime.executePendingJobs();
      if (jobs.error) throw jobs.error.consume((error) => this.failure(error));
      // An interrupt inside an async function can end up in a promise the script never looks
      // at, so the flags, not the job result, say whether the limits were hit.
      if (this.memoryExceeded || this.heapGrown()) throw ScriptError.outOfMemory();
      if (this.interrupted) throw ScriptError.timedOut(this.settings.budgetMs);
      this.flushServices();
      const state = this.context.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        const json = state.notAPromise
          ? null
          : state.value.consume((v) => (this.context.typeof(v) === 'string' ? this.context.getString(v) : null));
        if (json === null) throw ScriptError.thrown('the script did not produce a result');
        return JSON.parse(json);
      }
      if (state.type === 'rejected') throw state.error.consume((error) => this.failure(error));
      if (this.pending.size === 0) {
        throw ScriptError.thrown('the script is waiting for a promise that can never settle');
      }
      const woken = await this.signal.wait(this.settings.deadline - Date.now());
      if (!woken) throw ScriptError.timedOut(this.settings.budgetMs);
    }
  }

  /** The ScriptError for a value the script threw (or QuickJS threw at it). */
  private failure(error: QuickJSHandle): ScriptError {
    if (this.memoryExceeded || this.heapGrown()) return ScriptError.outOfMemory();
    if (this.interrupted || Date.now() >= this.settings.deadline) return ScriptError.timedOut(this.settings.budgetMs);
    const message = this.describe(error);
    if (message === OUT_OF_MEMORY) return ScriptError.outOfMemory();
    return ScriptError.thrown(message.slice(0, SANDBOX_LIMITS.maxErrorMessageChars));
  }

  private describe(error: QuickJSHandle): string {
    if (!this.describeFn) return 'the script failed before it started';
    const described = this.context.callFunction(this.describeFn, this.context.undefined, error);
    if (described.error) {
      described.error.dispose();
      return '[an error that cannot be described]';
    }
    return described.value.consume((v) =>
      this.context.typeof(v) === 'string' ? this.context.getString(v) : '[no message]',
    );
  }

  /** Evaluation results: a thrown value becomes the script's failure. */
  private unwrap(result: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
    if (result.error) throw result.error.consume((error) => this.failure(error));
    return result.value;
  }

  private toScriptError(error: unknown): ScriptError {
    const failure = error instanceof ScriptError ? error : this.crashFailure(error);
    if (failure.reason === 'memory') this.tainted = true;
    this.services.abandonSteps(failure.message);
    return failure;
  }

  /** A host exception out of QuickJS: not the script's own error, but caused by it. */
  private crashFailure(error: unknown): ScriptError {
    this.crash ??= error;
    if (Date.now() >= this.settings.deadline) return ScriptError.timedOut(this.settings.budgetMs);
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      return new ScriptError('crash', 'Script exceeded its stack size limit');
    }
    return new ScriptError('crash', `Script crashed its sandbox: ${messageOf(error)}`);
  }

  private flushServices(): void {
    this.services.flush();
  }
}

/** Host values go back into the sandbox as JSON text; '' stands for undefined. */
function encode(value: unknown): string {
  if (value === undefined) return '';
  const json = JSON.stringify(value);
  if (json === undefined) return '';
  return json;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
