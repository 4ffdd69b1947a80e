import {
  describeSelector,
  describeStep,
  fillTemplates,
  findStepAction,
  stepActionOf,
  withTimeout,
  type Step,
} from '@botfleet/core';
import type { Page } from 'playwright-core';
import { briefErrorMessage, isTimeoutError, stripAnsi } from './error-message';
import { StepFailedError } from './errors';
import { keepStepScreenshot } from './run-evidence';
import type { RunSession } from './run-session';
import { performStep } from './step-actions';

/** A step without its own `timeout` gets this long (ms); Playwright's 30 s is long for a bot. */
export const DEFAULT_STEP_TIMEOUT_MS = 15_000;

/**
 * Grace past a step's timeout before the interpreter gives up on it by itself. Playwright's own
 * timeout normally fires first with the better message; this catches calls that have none
 * (a keyboard press or evaluate on a page stuck in a script).
 */
const STEP_WATCHDOG_GRACE_MS = 1_000;

export interface RunStepsOptions {
  defaultStepTimeoutMs?: number;
}

/**
 * Runs recorded steps in order on a page that already shows the bot's targetUrl, recording
 * every step's output on the session. Returns the extracted data (each extract step's `name` ->
 * its value). A failed non-optional step throws StepFailedError after being recorded.
 */
export async function runSteps(
  page: Page,
  steps: readonly Step[],
  session: RunSession,
  options: RunStepsOptions = {},
): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = {};
  for (const rawStep of steps) {
    // The run already has its result (an output past a bound, the hard stop): stop here.
    if (session.signal?.aborted) break;
    const step = fillTemplates(rawStep, session.params);
    // Named from the unfilled step: params may carry secrets (a password to fill). People count
    // steps from 1 (the console's list, its failure text); `index` stays 0-based as data.
    const label = `Step ${rawStep.index + 1} (${describeStep(rawStep)})`;
    const startedAt = Date.now();
    const outcome = await attemptStep(page, step, session, options.defaultStepTimeoutMs ?? DEFAULT_STEP_TIMEOUT_MS);
    const durationMs = Date.now() - startedAt;
    const base = { index: rawStep.index, action: rawStep.action, startedAt, durationMs };

    if (outcome.ok) {
      const dataKey = stepActionOf(step).dataKey?.(step);
      if (dataKey !== undefined) data[dataKey] = outcome.data;
      session.recordStep({ ...base, status: 'completed', data: outcome.data, error: null });
      session.log('info', 'runner', `${label} completed in ${durationMs} ms`);
      if (session.stepScreenshots) await keepStepScreenshot(page, session, rawStep.index);
      continue;
    }
    // Once the execution's deadline has passed, an optional step cannot let the run go on.
    if (rawStep.optional && !outcome.deadlineExceeded) {
      session.recordStep({ ...base, status: 'skipped', data: null, error: outcome.message });
      session.log('warn', 'runner', `${label} skipped (optional): ${outcome.message}`);
      if (session.stepScreenshots) await keepStepScreenshot(page, session, rawStep.index);
      continue;
    }
    session.recordStep({ ...base, status: 'failed', data: null, error: outcome.message });
    session.log('error', 'runner', `${label} failed: ${outcome.message}`);
    if (session.stepScreenshots) await keepStepScreenshot(page, session, rawStep.index);
    throw new StepFailedError(rawStep.index, `${label} failed: ${outcome.message}`, {
      deadlineExceeded: outcome.deadlineExceeded,
      cause: outcome.cause,
    });
  }
  return data;
}

type StepOutcome =
  { ok: true; data: unknown } | { ok: false; message: string; deadlineExceeded: boolean; cause: unknown };

async function attemptStep(
  page: Page,
  step: Step,
  session: RunSession,
  defaultTimeoutMs: number,
): Promise<StepOutcome> {
  const remaining = session.deadline - Date.now();
  if (remaining <= 0) {
    return { ok: false, message: 'the execution deadline was reached', deadlineExceeded: true, cause: null };
  }
  // A sleep (waitFor ms) is only cut by the deadline; everything else also by the step timeout.
  const wanted = findStepAction(step.action)?.durationMs?.(step) ?? step.timeout ?? defaultTimeoutMs;
  const limitMs = Math.max(1, Math.min(wanted, remaining));
  const cutByDeadline = remaining < wanted;
  try {
    const data = await withWatchdog(
      performStep(page, step, limitMs, session),
      limitMs + STEP_WATCHDOG_GRACE_MS,
      limitMs,
    );
    return { ok: true, data };
  } catch (error) {
    const timedOut = isTimeoutError(error) || error instanceof WatchdogTimeout;
    return {
      ok: false,
      message: failureMessage(step, error, limitMs),
      deadlineExceeded: cutByDeadline && (timedOut || Date.now() >= session.deadline),
      cause: error,
    };
  }
}

class WatchdogTimeout extends Error {}

function withWatchdog<T>(work: Promise<T>, afterMs: number, reportedMs: number): Promise<T> {
  return withTimeout(work, afterMs, () => new WatchdogTimeout(`Timeout ${reportedMs}ms exceeded`));
}

/**
 * Playwright's first line, or for a timeout on a selector a plain sentence naming it, plus the
 * reason the element was not actionable when the call log has one (its last "element is ..."
 * line). The call log itself stays out: it is long and mostly retries.
 */
function failureMessage(step: Step, error: unknown, timeoutMs: number): string {
  const selector = 'selector' in step && step.selector !== undefined ? describeSelector(step.selector) : undefined;
  if (!isTimeoutError(error) && !(error instanceof WatchdogTimeout)) return briefErrorMessage(error);
  if (selector === undefined) return `Timeout ${timeoutMs}ms exceeded`;
  const log = error instanceof Error ? stripAnsi(error.message) : '';
  if (!log.includes('locator resolved to')) return `Timeout ${timeoutMs}ms exceeded waiting for selector ${selector}`;
  const reasons = log.match(/element is [^\n]+/g);
  const reason = reasons ? ` (${reasons[reasons.length - 1]!.trim()})` : '';
  return `Timeout ${timeoutMs}ms exceeded waiting for ${selector} to be ready${reason}`;
}
