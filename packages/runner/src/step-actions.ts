import { stepActionOf, type Step } from '@botfleet/core';
import type { Page } from 'playwright-core';
import type { RunSession } from './run-session';

/**
 * Performs one step whose templates are already filled, within `timeoutMs`, as its action's
 * definition says (@botfleet/core steps/actions). Returns the step's output data: the value for
 * `extract`, `{ artifactId }` for `screenshot`, null otherwise.
 */
export async function performStep(page: Page, step: Step, timeoutMs: number, session: RunSession): Promise<unknown> {
  const output = await stepActionOf(step).perform(page, step, {
    timeoutMs,
    saveArtifact: (kind, contentType, data) => session.saveArtifact(kind, contentType, data),
    maxOutputBytes: session.outputAllowance?.() ?? Number.POSITIVE_INFINITY,
    credentialValue: (value, targetSelector) =>
      session.secrets
        ? session.secrets.credentialValue(value, page, targetSelector, timeoutMs)
        : Promise.reject(new Error(`credential ${value.credential} cannot be used here: no credentials in this run`)),
    screenshot: (options) => page.screenshot({ ...options, mask: session.secrets?.masksOn(page) ?? [] }),
  });
  return output ?? null;
}
