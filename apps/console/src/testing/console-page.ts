import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { guardPage, seriousAxeViolations, type PageGuard } from './page-guard';

/** A browser context on the console with its guard, as each scenario of the console's tests opens it. */
export interface ConsoleScenario {
  context: BrowserContext;
  page: Page;
  guard: PageGuard;
  /** axe on the page as it is; fails on a serious or critical violation, naming where. */
  checkA11y(where: string): Promise<void>;
}

export async function openConsole(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<ConsoleScenario> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const guard = guardPage(page);
  return {
    context,
    page,
    guard,
    async checkA11y(where) {
      const violations = await seriousAxeViolations(page);
      if (violations.length > 0) throw new Error(`axe on ${where}:\n${violations.join('\n')}`);
    },
  };
}

/** Signs in with the key through the sign-in page and waits for the first page (the bots). */
export async function signIn(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
}

/** CONSOLE_SCREENSHOTS=1 saves the main pages to docs/screenshots/ (the README shows them). */
const SCREENSHOTS =
  process.env.CONSOLE_SCREENSHOTS === '1' ? join(__dirname, '..', '..', '..', '..', 'docs', 'screenshots') : null;

/**
 * A screenshot of the console as `console-<name>.png`, when CONSOLE_SCREENSHOTS=1 asks for them:
 * the whole page, or only `part` of it (an editor on a long page).
 */
export async function snap(page: Page, name: string, part?: Locator): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `console-${name}.png`);
  await (part ? part.screenshot({ path }) : page.screenshot({ path, fullPage: true }));
}

/** Every write (any method but GET) the page sends to the API, as `METHOD /api/...`. */
export function recordApiWrites(page: Page): string[] {
  const writes: string[] = [];
  page.on('request', (sent) => {
    const url = new URL(sent.url());
    if (sent.method() !== 'GET' && url.pathname.startsWith('/api/')) writes.push(`${sent.method()} ${url.pathname}`);
  });
  return writes;
}

/** The page's whole HTML, input values included (an input's value is not in its markup). */
async function pageText(page: Page): Promise<string> {
  const values = await page.locator('input').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
  return `${await page.content()}\n${values.join('\n')}`;
}

/** Fails, naming the secret, when any of `secrets` is anywhere on the page or in its inputs. */
export async function expectNoSecretShown(page: Page, secrets: readonly string[]): Promise<void> {
  const text = await pageText(page);
  const shown = secrets.filter((secret) => text.includes(secret));
  if (shown.length > 0) throw new Error(`secrets shown on the page: ${shown.map((s) => JSON.stringify(s)).join(', ')}`);
}
