import { isAllowedDocumentUrl, quoteUrl, schemeOf } from '@botfleet/core';
import type { BrowserContext, Frame, Page } from 'playwright-core';

/**
 * Chromium's own refusals of a load a page started, reported on the page's console: a web page
 * may not load `file:`, `chrome:`, `view-source:`, `devtools:`, `chrome-extension:`... in any
 * frame or popup ("local resources"; the browser process enforces it, so a compromised renderer
 * cannot either), nor navigate its top frame to `data:`. These loads never start, so the console
 * line is the only trace of them; a page can print the same text itself, which at worst adds a
 * misleading warning to its own run's log.
 */
const CHROMIUM_REFUSALS: readonly RegExp[] = [
  /^Not allowed to load local resource: (\S+)/,
  /^Not allowed to navigate top frame to \w+ URL: (\S+)/,
];

/**
 * What was stopped: the URL (cut for the log) and who stopped it: Chromium, the guard (unloaded
 * after it committed) or the run itself (a script's page.goto, refused before it started).
 */
export interface BlockedNavigation {
  scheme: string;
  url: string;
  by: 'chromium' | 'guard' | 'run';
}

const HOW_BLOCKED: Record<BlockedNavigation['by'], string> = {
  chromium: 'refused by Chromium',
  guard: 'unloaded',
  run: 'refused before loading',
};

/** The run-log line for a blocked navigation: a `warn`, never silent (docs/security.md). */
export function blockedNavigationMessage(blocked: BlockedNavigation): string {
  return `Blocked a page from opening a ${blocked.scheme} URL (${blocked.url}): only http(s) documents may load (${HOW_BLOCKED[blocked.by]})`;
}

/** A URL the run refused to open itself, as blockedNavigationMessage names it. */
export function refusedNavigation(url: string): BlockedNavigation {
  return { scheme: schemeOf(url), url: quoteUrl(url), by: 'run' };
}

/**
 * Keeps every frame and popup of a run's context on web documents (http, https, about:blank,
 * about:srcdoc). Playwright's routes never see non-network schemes, so this works at two levels:
 * - what Chromium refuses by itself (local resources, top-level data:) is only reported, from
 *   the console line Chromium writes;
 * - what Chromium allows (a `data:` or `blob:` document in a frame, a `blob:` top frame, a
 *   `javascript:` frame document) is unloaded as soon as it commits: a frame goes back to
 *   about:blank, a popup is closed, the run's own page goes to about:blank (its next step then
 *   fails on the empty page). Such documents only hold what the page itself made, so this
 *   enforces the rule without reaching anything the page could not already read.
 * Every attempt is passed to `onBlocked`.
 */
export function installNavigationGuard(context: BrowserContext, onBlocked: (blocked: BlockedNavigation) => void): void {
  const report = (url: string, by: BlockedNavigation['by']) =>
    onBlocked({ scheme: schemeOf(url), url: quoteUrl(url), by });

  const watch = (page: Page) => {
    page.on('framenavigated', (frame) => {
      const url = frame.url();
      if (isAllowedDocumentUrl(url)) return;
      report(url, 'guard');
      void unload(page, frame);
    });
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      for (const refusal of CHROMIUM_REFUSALS) {
        const match = refusal.exec(message.text());
        if (match) return report(match[1]!, 'chromium');
      }
    });
  };
  context.pages().forEach(watch);
  context.on('page', watch);
}

async function unload(page: Page, frame: Frame): Promise<void> {
  try {
    if (frame !== page.mainFrame()) await frame.goto('about:blank');
    else if (await page.opener()) await page.close();
    else await page.goto('about:blank');
  } catch {
    // The frame or page went away meanwhile (or the run ended): nothing is left to unload.
  }
}
