import { CONFIG_DEFAULTS, OutputTooLargeError } from '@botfleet/core';
import type { StepResult } from './run-session';

/** MAX_STEP_OUTPUT_BYTES and MAX_EXECUTION_OUTPUT_BYTES, as the worker passes them. */
export interface OutputLimits {
  /** One step's output (its data and error), JSON-encoded, in UTF-8 bytes. */
  maxStepBytes: number;
  /** A run's step outputs, extracted data and logs together, in UTF-8 bytes. */
  maxExecutionBytes: number;
}

/** The configuration's defaults (config.ts; docs/configuration.md), for a run not told otherwise. */
export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  maxStepBytes: CONFIG_DEFAULTS.MAX_STEP_OUTPUT_BYTES,
  maxExecutionBytes: CONFIG_DEFAULTS.MAX_EXECUTION_OUTPUT_BYTES,
};

/** The JSON text of `value`, as it would be stored, in UTF-8 bytes (undefined counts as null). */
function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value ?? null) ?? 'null');
}

const describeBytes = (bytes: number) => `${bytes} bytes`;

/**
 * The one account of what a run produces. Every producer of output goes through it: the step
 * interpreter and the script sandbox record steps and logs through the guarded session
 * (session-guard.ts), and runExecution admits the program's extracted data at the end. Reads
 * inside the page are measured there before anything is transferred (an extract against
 * `stepAllowance()`, a script's page calls against the sandbox's transfer bound, see page-ops.ts),
 * so a page cannot make the worker hold more than the bounds either.
 *
 * Past a bound, the offending output is replaced (a step) or refused (data) and the budget
 * trips: `exceeded` settles, and runExecution ends the run with the error. Logs never fail a
 * run: past the run's bound they are dropped, with one line saying so.
 */
export class OutputBudget {
  private used = 0;
  private logsCut = false;
  private tripped: OutputTooLargeError | null = null;
  private onTrip: ((error: OutputTooLargeError) => void) | undefined;
  /** Settles with the first error past a bound; never rejects. */
  readonly exceeded: Promise<OutputTooLargeError>;

  constructor(readonly limits: OutputLimits = DEFAULT_OUTPUT_LIMITS) {
    this.exceeded = new Promise((resolve) => {
      this.onTrip = resolve;
    });
  }

  /** The first error past a bound, or null. */
  get error(): OutputTooLargeError | null {
    return this.tripped;
  }

  /** The most one more output may take now: the step bound, or what is left of the run's. */
  stepAllowance(): number {
    return Math.max(0, Math.min(this.limits.maxStepBytes, this.limits.maxExecutionBytes - this.used));
  }

  /**
   * The step result to store: `result` when its output fits, else the same step failed with
   * output_too_large and no data (and the budget trips). After a trip nothing more is admitted.
   */
  admitStep(result: StepResult): StepResult {
    const bytes = jsonBytes(result.data) + (result.error === null ? 0 : Buffer.byteLength(result.error));
    // Numbered from 1 in the message, as people count steps; the error's stepIndex stays 0-based.
    const error = this.check(result.index, bytes, `the output of step ${result.index + 1}`);
    if (error === null) return result;
    return { ...result, status: 'failed', data: null, error: error.message };
  }

  /** A log line to store, or null when the run's bound is reached (the first refusal says so once). */
  admitLog(message: string): string | null {
    if (this.logsCut) return null;
    const bytes = Buffer.byteLength(message);
    if (this.used + bytes <= this.limits.maxExecutionBytes) {
      this.used += bytes;
      return message;
    }
    this.logsCut = true;
    return `Log output reached the run's bound of ${describeBytes(this.limits.maxExecutionBytes)} (MAX_EXECUTION_OUTPUT_BYTES); further lines dropped`;
  }

  /** Admits the run's extracted data: null when it fits, else the error (and the budget trips). */
  admitData(data: unknown): OutputTooLargeError | null {
    return this.check(null, jsonBytes(data), "the run's extracted data");
  }

  private check(stepIndex: number | null, bytes: number, what: string): OutputTooLargeError | null {
    if (this.tripped) return this.tripped;
    const perStep = stepIndex !== null;
    if ((perStep && bytes > this.limits.maxStepBytes) || this.used + bytes > this.limits.maxExecutionBytes) {
      return this.trip(new OutputTooLargeError(stepIndex, this.overMessage(what, bytes, perStep)));
    }
    this.used += bytes;
    return null;
  }

  private overMessage(what: string, bytes: number, perStep = true): string {
    if (perStep && bytes > this.limits.maxStepBytes)
      return `${what} is ${describeBytes(bytes)}, over the bound of ${describeBytes(this.limits.maxStepBytes)} per step (MAX_STEP_OUTPUT_BYTES)`;
    return `${what} (${describeBytes(bytes)}) would take the run past its bound of ${describeBytes(this.limits.maxExecutionBytes)} (MAX_EXECUTION_OUTPUT_BYTES)`;
  }

  private trip(error: OutputTooLargeError): OutputTooLargeError {
    if (this.tripped) return this.tripped;
    this.tripped = error;
    this.onTrip?.(error);
    return error;
  }
}
