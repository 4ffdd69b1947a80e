/**
 * How one attempt of a run ended: the one type the runner returns, the worker switches on and
 * the repositories store. A timed-out run is stored as `failed` (its error says it timed out)
 * and a cancelled one keeps the `cancelled` its cancel wrote, but the runner says which it was,
 * so no caller has to read an error message to tell them apart.
 */
export type RunOutcome =
  | { status: 'completed'; data: unknown }
  | ({ status: 'failed'; error: string; stepIndex: number | null } & FailureScreenshot)
  | ({ status: 'timed_out'; error: string; stepIndex: number | null } & FailureScreenshot)
  | { status: 'cancelled' };

/** The page as a failed run left it (masked), if one could be taken. */
interface FailureScreenshot {
  screenshot?: Uint8Array | null;
  /**
   * The run held secret values when it was taken (a filled credential, its profile's cookies):
   * it is kept sealed at rest like the run's other artifacts (docs/security.md).
   */
  sealScreenshot?: boolean;
}

/** The outcomes that end a run with an error: the bot's own failure or its timeout. */
export type FailedRunOutcome = Extract<RunOutcome, { status: 'failed' | 'timed_out' }>;

/** The execution status an outcome is stored as. */
export function storedStatusOf(outcome: RunOutcome): 'completed' | 'failed' | 'cancelled' {
  switch (outcome.status) {
    case 'completed':
      return 'completed';
    case 'failed':
    case 'timed_out':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
  }
}
