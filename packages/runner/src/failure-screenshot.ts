import { withTimeout } from '@botfleet/core';
import type { Page } from 'playwright-core';

export const FAILURE_SCREENSHOT_TIMEOUT_MS = 3_000;

/**
 * A PNG of the page as the run failed, or null when that is impossible (the page never opened,
 * crashed, or is frozen by a script). Bounded twice: Playwright's timeout, and a timer for the
 * case where the protocol call itself never returns.
 */
export async function captureFailureScreenshot(
  page: Page | null,
  timeoutMs = FAILURE_SCREENSHOT_TIMEOUT_MS,
): Promise<Buffer | null> {
  if (!page || page.isClosed()) return null;
  // Playwright's own timeout may not fire when the page is wedged; ours backs it up.
  return withTimeout(
    page.screenshot({ type: 'png', timeout: timeoutMs }),
    timeoutMs + 500,
    'screenshot timed out',
  ).catch(() => null);
}
