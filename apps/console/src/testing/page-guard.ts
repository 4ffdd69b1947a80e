import { AxeBuilder } from '@axe-core/playwright';
import type { Page, Response } from 'playwright-core';

/**
 * Watches a console page for what must never happen: a console error, an uncaught exception, a
 * request that failed, or an HTTP error the test did not announce with `expectError`. Chrome also
 * logs "Failed to load resource" for an announced error; that line is forgiven with it.
 */
export interface PageGuard {
  /** The next responses matching this (e.g. the 400 of an unknown parameter) are intended. */
  expectError(match: (response: Response) => boolean): void;
  problems: string[];
}

export function guardPage(page: Page): PageGuard {
  const expected: ((response: Response) => boolean)[] = [];
  const forgivenUrls = new Set<string>();
  const problems: string[] = [];
  page.on('response', (response) => {
    if (response.status() < 400) return;
    if (expected.some((match) => match(response))) forgivenUrls.add(response.url());
    else problems.push(`HTTP ${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    if (isClosedEventStream(request.url(), request.failure()?.errorText)) return;
    problems.push(`request failed: ${request.method()} ${request.url()} (${request.failure()?.errorText ?? '?'})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error' && message.type() !== 'warning') return;
    const url = message.location().url;
    if (message.text().startsWith('Failed to load resource') && forgivenUrls.has(url)) return;
    problems.push(`console ${message.type()}: ${message.text()} (${url})`);
  });
  return { expectError: (match) => expected.push(match), problems };
}

/**
 * The console closes an event stream (GET /api/v1/executions/events, .../:id/events) when the page
 * following it is left, which Chromium reports as an aborted request: intended, not a failure.
 */
function isClosedEventStream(url: string, errorText: string | undefined): boolean {
  return errorText === 'net::ERR_ABORTED' && /^\/api\/v1\/executions\/(?:[\w-]+\/)?events$/.test(new URL(url).pathname);
}

/** axe-core on the page as it is now: the serious and critical violations, described. */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'])
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}
