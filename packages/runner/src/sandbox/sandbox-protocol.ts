import type { LogLevel, StepStatus } from '@botfleet/core';
import type { ScriptFailure } from './script-error';

/*
 * The messages between a run's host (the worker's main thread, which owns the Playwright page
 * and the RunSession) and its sandbox thread (which owns the QuickJS instance). Only plain data
 * crosses: page-call arguments and results as JSON text, as they left QuickJS.
 */

/** What the script's `log` and `step` calls did, for the host to apply to the session. */
export type ServiceEvent =
  | { type: 'log'; level: LogLevel; message: string }
  | { type: 'step.start'; name: string; at: number }
  | { type: 'step.end'; index: number; status: StepStatus; data: unknown; error: string | null; at: number }
  | { type: 'steps.abandon'; error: string; at: number }
  /** A problem of the sandbox itself (not the script's), logged as a system warning. */
  | { type: 'warning'; message: string };

/** Host → thread. */
export type HostMessage =
  | {
      kind: 'start';
      source: string;
      paramsJson: string;
      /** Unix ms; the thread's own interrupt handler stops the script there. */
      deadline: number;
      budgetMs: number;
      memoryLimitBytes: number;
    }
  | { kind: 'reply'; id: number; json: string | null; error: string | null };

/** Thread → host. */
export type ThreadMessage =
  /** The thread has loaded its code and a QuickJS instance: it can take a run. */
  | { kind: 'ready' }
  | { kind: 'call'; id: number; op: string; argsJson: string }
  | { kind: 'events'; events: ServiceEvent[] }
  | { kind: 'done'; value: unknown }
  | { kind: 'failed'; reason: ScriptFailure; message: string };
