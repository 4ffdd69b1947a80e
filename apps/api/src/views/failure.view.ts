import type { Execution } from '@botfleet/db';
import type { FailureView } from '../contracts/execution-results.contract';

/** Why a failed execution failed; `screenshotUrl` is the signed URL of the screenshot taken then, if any. */
export function toFailureView(
  execution: Pick<Execution, 'error' | 'failedStepIndex'>,
  screenshotUrl: string | null,
): FailureView {
  return { error: execution.error ?? 'Unknown error', screenshotUrl, stepIndex: execution.failedStepIndex };
}
