import { errors } from 'playwright-core';

/**
 * A short, user-facing message for any thrown value. Playwright errors carry a multi-line
 * "Call log" and a `locator.click: ` style prefix; users need neither, and the call log can be
 * long enough to drown the cause.
 */
export function briefErrorMessage(error: unknown): string {
  const raw = stripAnsi(error instanceof Error ? error.message : String(error));
  const firstLine = raw.split('\n').find((line) => line.trim() !== '') ?? raw;
  // "locator.click: Timeout ..." / "page.goto: net::ERR_..." -> drop the API prefix.
  return (
    firstLine
      .replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '')
      .replace(/\s*=+\s*logs\s*=+.*$/i, '')
      .trim() || 'Unknown error'
  );
}

export function isTimeoutError(error: unknown): boolean {
  return error instanceof errors.TimeoutError;
}

/** Playwright colours parts of its messages for terminals; stored messages must be plain text. */
export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}
