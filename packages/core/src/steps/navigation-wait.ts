import { z } from 'zod';
import type { ScriptWriter } from './script-writer';
import type { StepPage } from './step-page';

/**
 * A step that starts a navigation (a Recorder step's `assertedEvents: [{ type: "navigation" }]`)
 * waits for it: with `url`, until the page is at that URL and loaded; without, for the next load
 * event. The wait starts before the action, so a fast navigation cannot be missed.
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

/** Runs `act` while waiting for the navigation it starts; both must finish within `timeoutMs`. */
export async function withNavigationWait<T>(
  page: StepPage,
  wait: NavigationWait | undefined,
  timeoutMs: number,
  act: () => Promise<T>,
): Promise<T> {
  if (!wait) return act();
  const expected = wait.url === undefined ? undefined : normalizeUrl(wait.url);
  const navigation =
    expected === undefined
      ? page.waitForEvent('load', { timeout: timeoutMs })
      : page.waitForURL((url) => url.href === expected, { timeout: timeoutMs, waitUntil: 'load' });
  const [, result] = await Promise.all([navigation, act()]);
  return result;
}

/** The generated script's form: the action's call, awaited together with page.waitForNavigation. */
export function navigationWaitScript(
  step: { waitForNavigation?: NavigationWait | undefined; timeout?: number | undefined },
  action: string,
  script: ScriptWriter,
): string[] {
  const wait = step.waitForNavigation;
  if (!wait) return [`await ${action};`];
  const options = [
    ...(wait.url === undefined ? [] : [`url: ${script.text(wait.url)}`]),
    ...(step.timeout === undefined ? [] : [`timeout: ${script.number(step.timeout)}`]),
  ];
  const call = options.length === 0 ? 'page.waitForNavigation()' : `page.waitForNavigation({ ${options.join(', ')} })`;
  return ['await Promise.all([', `  ${call},`, `  ${action},`, ']);'];
}
