import type { Page } from 'playwright-core';
import type { RunSession } from '../run-session';
import { SANDBOX_LIMITS } from './limits';
import { newQuickJSInstance } from './quickjs-module';
import { QuickJSSandbox, type QuickJSModuleLike } from './quickjs-sandbox';
import { ScriptError } from './script-error';

export interface SandboxedScriptOptions {
  /** The script: an ES module whose default export is `async ({ page, params, log, step }) => data`. */
  source: string;
  page: Page;
  session: RunSession;
  /** Wall-clock limit; the session's deadline applies too, whichever comes first. */
  timeoutMs?: number;
  /** QuickJS heap limit (default 64 MiB). */
  memoryLimitBytes?: number;
  /** Tests only: run in this QuickJS module instead of a fresh one. */
  quickjs?: QuickJSModuleLike;
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
  const quickjs = options.quickjs ?? (await newQuickJSInstance());
  const sandbox = new QuickJSSandbox(quickjs, {
    page: options.page,
    session: options.session,
    deadline,
    budgetMs,
    memoryLimitBytes: options.memoryLimitBytes ?? SANDBOX_LIMITS.defaultMemoryLimitBytes,
  });
  try {
    return await sandbox.run(options.source);
  } finally {
    sandbox.dispose();
  }
}
