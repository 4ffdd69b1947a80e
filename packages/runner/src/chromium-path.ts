import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';

/** Debian/Ubuntu's package: the same Chromium major as Playwright 1.64 (see stack-notes.md). */
export const SYSTEM_CHROMIUM_PATH = '/usr/bin/chromium';

export interface ResolveChromiumPathOptions {
  /** CHROMIUM_PATH, read by the app's config and passed in. */
  explicitPath?: string | undefined;
  /** Injected for tests. */
  fileExists?: (path: string) => boolean;
  /** Injected for tests; defaults to Playwright's own download location. */
  playwrightPath?: () => string;
}

/**
 * Picks the Chromium executable: an explicit path, else the system package, else a browser
 * downloaded by Playwright. An explicit path that does not exist is an error rather than a silent
 * fallback, so a typo in CHROMIUM_PATH cannot quietly run a different browser.
 */
export function resolveChromiumPath(options: ResolveChromiumPathOptions = {}): string {
  const exists = options.fileExists ?? existsSync;
  const explicit = options.explicitPath?.trim();
  if (explicit) {
    if (!exists(explicit)) throw new Error(`CHROMIUM_PATH points to ${explicit}, which does not exist`);
    return explicit;
  }
  if (exists(SYSTEM_CHROMIUM_PATH)) return SYSTEM_CHROMIUM_PATH;
  let playwrightPath: string | null = null;
  try {
    playwrightPath = (options.playwrightPath ?? (() => chromium.executablePath()))();
  } catch {
    // executablePath() throws when Playwright knows no build for this platform.
  }
  if (playwrightPath && exists(playwrightPath)) return playwrightPath;
  throw new Error(
    `No Chromium found: set CHROMIUM_PATH, install the system package (${SYSTEM_CHROMIUM_PATH}; ` +
      'run `node scripts/ensure-chromium.mjs` as root), or run `npx playwright-core install chromium`',
  );
}
