import { OutputTooLargeError } from '@botfleet/core';
import type { Page } from 'playwright-core';
import type { RunSession } from '../run-session';
import { BridgeArgs } from './bridge-args';
import { SANDBOX_LIMITS } from './limits';
import { PAGE_OPS, type PageOpEnv } from './page-ops';
import type { ServiceEvent } from './sandbox-protocol';
import { StepRecorder } from './step-recorder';

/**
 * The host side of one script run, on the worker's main thread: it runs the page calls the
 * sandbox asks for against the real Playwright page, and applies the script's log and step
 * events to the RunSession. It never sees a QuickJS handle, only JSON text and plain events,
 * so the sandbox can live in another thread (or, for tests, in this one).
 */
export class ScriptHost {
  private readonly env: PageOpEnv;
  private readonly steps: StepRecorder;
  private closed = false;

  constructor(
    private readonly session: RunSession,
    page: Page,
    deadline: number,
  ) {
    this.env = {
      page,
      session,
      remainingMs: () => deadline - Date.now(),
      timeout: (requested) => {
        // Playwright reads 0 as "no timeout"; a script's call must never outlive the deadline.
        const wanted = requested !== undefined && requested > 0 ? requested : SANDBOX_LIMITS.defaultActionTimeoutMs;
        return Math.max(1, Math.min(wanted, deadline - Date.now()));
      },
    };
    this.steps = new StepRecorder((result) => session.recordStep(result), SANDBOX_LIMITS.maxSteps);
  }

  /**
   * Runs one page method. Resolves to its result as JSON text ('' for undefined); rejects with
   * an Error whose message is meant for the script.
   */
  async callPage(op: string, argsJson: string): Promise<string> {
    const pageOp = PAGE_OPS.get(op);
    if (!pageOp) throw new Error(`page.${op} is not a function`);
    let args: unknown;
    try {
      args = JSON.parse(argsJson);
    } catch {
      throw new Error('bad host call');
    }
    if (!Array.isArray(args)) throw new Error('bad host call');
    // Playwright then runs on a fresh stack (a microtask), never under the caller's.
    await Promise.resolve();
    let json: string;
    try {
      json = encodePageResult(await pageOp(new BridgeArgs(op, args), this.env));
    } catch (error) {
      throw new Error(stripAnsi(messageOf(error)), { cause: error });
    }
    // A backstop: what a page can make large is measured inside the page first (page-ops.ts).
    if (json.length > SANDBOX_LIMITS.maxTransferChars) {
      throw new OutputTooLargeError(
        null,
        `the result is ${json.length} characters, over the ${SANDBOX_LIMITS.maxTransferChars} a page call may hand back`,
      );
    }
    return json;
  }

  /** Applies the script's log and step events, in the order the script made them. */
  apply(events: readonly ServiceEvent[]): void {
    if (this.closed) return;
    for (const event of events) {
      try {
        this.applyOne(event);
      } catch (error) {
        // The sandbox checked these calls already; a mismatch is a bug, not the script's doing.
        this.session.log('warn', 'system', `Script sandbox sent an unusable event: ${messageOf(error)}`);
      }
    }
  }

  /**
   * Ends the run on the host side: steps still open fail with `error` (when the sandbox could
   * not close them itself, e.g. because its thread was killed), and later events are ignored.
   */
  close(error: string | null): void {
    if (this.closed) return;
    if (error !== null) this.steps.abandon(error);
    this.closed = true;
  }

  private applyOne(event: ServiceEvent): void {
    switch (event.type) {
      case 'log':
        this.session.log(event.level, 'script', event.message);
        return;
      case 'step.start':
        this.steps.start(event.name, event.at);
        return;
      case 'step.end':
        this.steps.finish(event.index, event.status, event.data, event.error, event.at);
        return;
      case 'steps.abandon':
        this.steps.abandon(event.error, event.at);
        return;
      case 'warning':
        this.session.log('warn', 'system', event.message);
        return;
    }
  }
}

/** Host values go back into the sandbox as JSON text; '' stands for undefined. */
export function encode(value: unknown): string {
  if (value === undefined) return '';
  const json = JSON.stringify(value);
  if (json === undefined) return '';
  return json;
}

function encodePageResult(value: unknown): string {
  try {
    return encode(value);
  } catch {
    throw new Error('the page returned a value that is not JSON-serialisable');
  }
}

/** Playwright colours its call logs for terminals; scripts and execution errors want plain text. */
function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching the escape character is the point
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
