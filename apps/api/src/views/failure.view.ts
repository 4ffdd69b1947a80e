import type { Execution } from '@botfleet/db';
import type { z } from 'zod';
import type { FailureSchema } from '@botfleet/core';

/** Why a failed execution failed; `screenshotUrl` is the signed URL of the screenshot taken then, if any. */
export function toFailureView(
  execution: Pick<Execution, 'error' | 'failedStepIndex'>,
  screenshotUrl: string | null,
): z.infer<typeof FailureSchema> {
  return { error: execution.error ?? 'Unknown error', screenshotUrl, stepIndex: execution.failedStepIndex };
}
