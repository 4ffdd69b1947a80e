import type { ResourceLimits } from 'node:worker_threads';
import type { Page } from 'playwright-core';
import type { RunSession } from '../run-session';
import { SANDBOX_LIMITS } from './limits';
import { QuickJSSandbox, type QuickJSModuleLike } from './quickjs-sandbox';
import { runInSandboxThread } from './sandbox-thread-host';
import { ScriptError } from './script-error';
import { ScriptHost } from './script-host';

export interface SandboxedScriptOptions {
  /** The script: an ES module whose default export is `async ({ page, params, log, step }) => data`. */
  source: string;
  page: Page;
  session: RunSession;
  /** Wall-clock limit; the session's deadline applies too, whichever comes first. */
  timeoutMs?: number;
  /** QuickJS heap limit (default 64 MiB). */
  memoryLimitBytes?: number;
  /**
   * Tests only: run in this QuickJS module, on this thread, instead of a fresh one in a sandbox
   * thread (the leak checks need to see the module).
   */
  quickjs?: QuickJSModuleLike;
  /** Tests only: the sandbox thread's V8 heap limits (see threadResourceLimits). */
  threadResourceLimits?: ResourceLimits;
}

/*
 * Why QuickJS in Wasm, the synchronous build, one fresh Wasm instance per run:
 * - node:vm shares the worker's realm plumbing (`this.constructor.constructor('return process')()`),
 *   Node's permission model does not claim to stop malicious code, and isolated-vm is native and
 *   cannot carry a Playwright page. QuickJS-in-Wasm has no ambient APIs at all: the script
 *   reaches the worker only through two JSON-text host functions.
 * - The sync build plus QuickJS promises (resolved when the Playwright call settles, then
 *   executePendingJobs) lets `page.*` be ordinary async functions; asyncify would make them
 *   look synchronous at the price of a bigger, slower build and one suspended call at a time.
 * - A fresh instance (a few ms) means a script that corrupts its Wasm memory (e.g. a V8 stack
 *   overflow thrown through Wasm frames) can never affect the next run; it is just dropped.
 * - Each run's QuickJS lives in its own worker thread (sandbox-thread.ts), which serves that
 *   run only. QuickJS's interrupt handler runs between bytecode batches, so one long built-in
 *   call (`'x'.repeat(5e7).split('')`) can hold it off for seconds, and nothing stops a call
 *   running on the worker's main thread; a thread can be terminated mid-call. Its V8 heap has
 *   resourceLimits, so a blow-up there kills the thread, not the worker. The page stays here:
 *   page calls and log/step events cross as messages (ScriptHost serves them).
 */

/**
 * Runs an untrusted script against `page` and returns its data (a JSON value; `null` when it
 * returns nothing). Throws ScriptError when the script throws, times out, runs out of memory
 * or breaks its sandbox; never lets the script reach the worker's process.
 */
export async function runSandboxedScript(options: SandboxedScriptOptions): Promise<unknown> {
  const startedAt = Date.now();
  const deadline = Math.min(startedAt + (options.timeoutMs ?? Number.POSITIVE_INFINITY), options.session.deadline);
  const budgetMs = deadline - startedAt;
  if (!(budgetMs > 0)) throw ScriptError.timedOut(0);
  const memoryLimitBytes = options.memoryLimitBytes ?? SANDBOX_LIMITS.defaultMemoryLimitBytes;
  const paramsJson = JSON.stringify(options.session.params ?? {});
  const host = new ScriptHost(options.session, options.page, deadline);
  if (!options.quickjs) {
    return runInSandboxThread(
      {
        source: options.source,
        paramsJson,
        deadline,
        budgetMs,
        memoryLimitBytes,
        resourceLimits: options.threadResourceLimits,
        signal: options.session.signal,
      },
      host,
    );
  }
  const sandbox = new QuickJSSandbox(options.quickjs, {
    bridge: { callPage: (op, argsJson) => host.callPage(op, argsJson), deliver: (events) => host.apply(events) },
    paramsJson,
    deadline,
    budgetMs,
    memoryLimitBytes,
  });
  // Disposed before the host closes: a failed cleanup is reported through it.
  const outcome = await sandbox.run(options.source).then(
    (data: unknown) => ({ data, error: null }),
    (error: unknown) => ({ data: null, error }),
  );
  sandbox.dispose();
  host.close(
    outcome.error === null ? null : outcome.error instanceof Error ? outcome.error.message : String(outcome.error),
  );
  if (outcome.error !== null) throw outcome.error;
  return outcome.data;
}
