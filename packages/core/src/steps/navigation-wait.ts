import { z } from 'zod';
import { framePrefix } from './element-selector';
import { LOCATE_DEFAULT_TIMEOUT_MS } from './locate-element';
import { FRAME_DOCUMENT_HELPER, frameDocumentInPage } from './page-functions';
import type { ScriptHelper, ScriptWriter } from './script-writer';
import type { StepPage } from './step-page';

/**
 * A step that starts a navigation (a Recorder step's `assertedEvents: [{ type: "navigation" }]`)
 * waits for it in the frame the step runs in, as Chrome's own replay does: with `url`, until that
 * frame is at that URL and loaded; without, for its next document to load. The wait starts
 * before the action, so a fast navigation cannot be missed.
 */
export const NavigationWaitSchema = z
  .strictObject({ url: z.string().min(1).max(2048).optional() })
  .describe('Wait for the navigation this step starts (to `url` when given) before the step completes');
export type NavigationWait = z.infer<typeof NavigationWaitSchema>;

/** The same URL, spelled the way a browser reports it (`https://a.example` -> `https://a.example/`). */
export function normalizeUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}

/** How often a child frame's document is looked at while waiting for it to navigate (ms). */
const FRAME_NAVIGATION_POLL_MS = 100;

/**
 * Runs `act` while waiting for the navigation it starts (in the child frame at `frame`, else the
 * page); both must finish within `timeoutMs`.
 */
export async function withNavigationWait<T>(
  page: StepPage,
  wait: NavigationWait | undefined,
  timeoutMs: number,
  act: () => Promise<T>,
  frame?: readonly number[],
): Promise<T> {
  if (!wait) return act();
  if (frame?.length) return withFrameNavigationWait(page, frame, wait, timeoutMs, act);
  const expected = wait.url === undefined ? undefined : normalizeUrl(wait.url);
  const navigation =
    expected === undefined
      ? page.waitForEvent('load', { timeout: timeoutMs })
      : page.waitForURL((url) => url.href === expected, { timeout: timeoutMs, waitUntil: 'load' });
  const [, result] = await Promise.all([navigation, act()]);
  return result;
}

/**
 * A child frame has no load event on the page: its document is looked at until it is a new one
 * (or at `url`) and loaded. A frame's document works across origins (Playwright enters
 * out-of-process frames too) and survives the frame navigating.
 */
async function withFrameNavigationWait<T>(
  page: StepPage,
  frame: readonly number[],
  wait: NavigationWait,
  timeoutMs: number,
  act: () => Promise<T>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  const root = page.locator(`${framePrefix(frame)}:root`);
  const read = () => root.evaluateAll(frameDocumentInPage, null).catch(() => null);
  const before = await read();
  const result = await act();
  const expected = wait.url === undefined ? undefined : normalizeUrl(wait.url);
  for (;;) {
    const now = await read();
    const arrived = expected === undefined ? now?.timeOrigin !== before?.timeOrigin : now?.href === expected;
    if (now?.ready && arrived) return result;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(frameNavigationTimeout(frame, expected, timeoutMs));
    await page.waitForTimeout(Math.min(FRAME_NAVIGATION_POLL_MS, left));
  }
}

function frameNavigationTimeout(frame: readonly number[], url: string | undefined, ms: number): string {
  return `Frame ${frame.join('.')} did not navigate${url === undefined ? '' : ` to ${url}`} within ${ms} ms`;
}

/** The script's copy of withFrameNavigationWait. */
export const FRAME_NAVIGATION_HELPER: ScriptHelper = {
  name: 'waitForFrameNavigation',
  source: `// Runs act while waiting for the child frame \`frame\` (its root element is \`root\`) to load a
// new document (or \`url\`).
async function waitForFrameNavigation(page, root, frame, url, timeoutMs, act) {
  const deadline = Date.now() + timeoutMs;
  let expected = url;
  try {
    if (url !== null) expected = new URL(url).href;
  } catch {}
  const read = () => page.$$eval(root, frameDocument, null).catch(() => null);
  const before = await read();
  const result = await act();
  for (;;) {
    const now = await read();
    const arrived = expected === null ? (now && now.timeOrigin) !== (before && before.timeOrigin) : now && now.href === expected;
    if (now && now.ready && arrived) return result;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error('Frame ' + frame + ' did not navigate' + (url === null ? '' : ' to ' + url) + ' within ' + timeoutMs + ' ms');
    await page.waitForTimeout(Math.min(${FRAME_NAVIGATION_POLL_MS}, left));
  }
}`,
  needs: [FRAME_DOCUMENT_HELPER],
};

/**
 * The generated script's form: the action's call, awaited together with page.waitForNavigation
 * (or, in a child frame, with waitForFrameNavigation).
 */
export function navigationWaitScript(
  step: {
    waitForNavigation?: NavigationWait | undefined;
    timeout?: number | undefined;
    frame?: number[] | undefined;
  },
  action: string,
  script: ScriptWriter,
): string[] {
  const wait = step.waitForNavigation;
  if (!wait) return [`await ${action};`];
  if (step.frame?.length) {
    const url = wait.url === undefined ? 'null' : script.text(wait.url);
    const timeout = script.number(step.timeout ?? LOCATE_DEFAULT_TIMEOUT_MS);
    const helper = script.use(FRAME_NAVIGATION_HELPER);
    const root = JSON.stringify(`${framePrefix(step.frame)}:root`);
    return [
      `await ${helper}(page, ${root}, ${JSON.stringify(step.frame.join('.'))}, ${url}, ${timeout}, () => ${action});`,
    ];
  }
  const options = [
    ...(wait.url === undefined ? [] : [`url: ${script.text(wait.url)}`]),
    ...(step.timeout === undefined ? [] : [`timeout: ${script.number(step.timeout)}`]),
  ];
  const call = options.length === 0 ? 'page.waitForNavigation()' : `page.waitForNavigation({ ${options.join(', ')} })`;
  return ['await Promise.all([', `  ${call},`, `  ${action},`, ']);'];
}
