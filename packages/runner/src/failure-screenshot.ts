import { withTimeout } from '@botfleet/core';
import type { Page } from 'playwright-core';
import type { RunSecrets } from './run-secrets';

export const FAILURE_SCREENSHOT_TIMEOUT_MS = 3_000;

/**
 * A PNG of the page's viewport, with every element filled from a credential or showing a secret
 * value of the run painted over (RunSecrets.masksOn, as in every screenshot of the run). Bounded twice: Playwright's timeout, and a timer for the case
 * where the protocol call itself never returns (a page frozen by a script).
 */
export function capturePageScreenshot(
  page: Page,
  options: { timeoutMs?: number; secrets?: RunSecrets | undefined } = {},
): Promise<Buffer> {
  const timeoutMs = options.timeoutMs ?? FAILURE_SCREENSHOT_TIMEOUT_MS;
  const mask = options.secrets?.masksOn(page) ?? [];
  return withTimeout(
    page.screenshot({ type: 'png', timeout: timeoutMs, mask }),
    timeoutMs + 500,
    'screenshot timed out',
  );
}

/**
 * A PNG of the page as the run failed, or null when that is impossible (the page never opened,
 * crashed, or is frozen by a script).
 */
export async function captureFailureScreenshot(
  page: Page | null,
  options: { timeoutMs?: number; secrets?: RunSecrets } = {},
): Promise<Buffer | null> {
  if (!page || page.isClosed()) return null;
  return capturePageScreenshot(page, options).catch(() => null);
}
