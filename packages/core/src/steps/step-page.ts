import type { PageFunction } from '../page-function';
import type { CredentialValue } from '../sessions/credential';
/**
 * The part of a Playwright page that step actions use, declared here so core stays free of
 * Playwright: the runner passes its real `Page`, and the compiler checks that it fits. Options
 * are the ones actions pass, not everything Playwright accepts.
 */
export interface StepPage {
  url(): string;
  goto(url: string, options: { timeout: number; waitUntil: 'load' }): Promise<unknown>;
  locator(selector: string): StepLocator;
  /** `type` sends `text` key by key to the focused element (`\n` presses Enter). */
  readonly keyboard: { press(key: string): Promise<void>; type(text: string): Promise<void> };
  waitForTimeout(ms: number): Promise<void>;
  /** Runs `pageFunction` inside the web page (declared with definePageFunction, see page-function.ts). */
  evaluate<R>(pageFunction: PageFunction<() => R>): Promise<R>;
  screenshot(options: {
    type: 'png';
    fullPage: boolean;
    timeout: number;
    clip?: { x: number; y: number; width: number; height: number };
  }): Promise<Buffer>;
  setViewportSize(size: { width: number; height: number }): Promise<void>;
  /** Waits until the page's URL passes `url` (after a navigation, also its load event). */
  waitForURL(url: (url: URL) => boolean, options: { timeout: number; waitUntil: 'load' }): Promise<void>;
  waitForEvent(event: 'load', options: { timeout: number }): Promise<unknown>;
}

/** A Playwright locator: the elements matching a selector, resolved when an action runs. */
export interface StepLocator {
  first(): StepLocator;
  nth(index: number): StepLocator;
  locator(selector: string): StepLocator;
  count(): Promise<number>;
  click(options: { timeout: number; button?: 'left' | 'right' | 'middle'; clickCount?: number }): Promise<void>;
  hover(options: { timeout: number }): Promise<void>;
  check(options: { timeout: number }): Promise<void>;
  uncheck(options: { timeout: number }): Promise<void>;
  fill(value: string, options: { timeout: number }): Promise<void>;
  selectOption(value: string, options: { timeout: number }): Promise<string[]>;
  press(key: string, options: { timeout: number }): Promise<void>;
  waitFor(options: { state: 'visible'; timeout: number }): Promise<void>;
  scrollIntoViewIfNeeded(options: { timeout: number }): Promise<void>;
  textContent(options: { timeout: number }): Promise<string | null>;
  getAttribute(name: string, options: { timeout: number }): Promise<string | null>;
  /**
   * Runs `pageFunction` inside the web page on all matches in one round trip, with `arg` copied
   * in. One signature per kind of argument: Playwright types a generic argument through its own
   * conditional types, which a structural type cannot match, but it accepts concrete ones.
   */
  evaluateAll<R>(
    pageFunction: PageFunction<(elements: PageElement[], attribute: string | null) => R>,
    attribute: string | null,
  ): Promise<R>;
  evaluateAll<R>(
    pageFunction: PageFunction<(elements: PageElement[], read: BoundedRead) => R>,
    read: BoundedRead,
  ): Promise<R>;
  /** Runs `pageFunction` inside the web page on the one match, waiting for it as textContent does. */
  evaluate<R>(
    pageFunction: PageFunction<(element: PageElement, read: BoundedRead) => R>,
    read: BoundedRead,
    options: { timeout: number },
  ): Promise<R>;
}

/**
 * What an extract reads inside the page, and the most it may send back: `limit` characters of
 * JSON (a string's UTF-8 bytes are never fewer than its UTF-16 length, so a value within the
 * byte bound always fits; the worker measures the bytes exactly when it records the step).
 */
export interface BoundedRead {
  attribute: string | null;
  fields: readonly PageFieldSpec[] | null;
  limit: number;
}

export type PageElement = SVGElement | HTMLElement;

/** A field to read inside each match: the first element matching `selector`, its text or `attribute`. */
export type PageFieldSpec = { name: string; selector: string; attribute: string | null };

/** What a step may use besides the page. */
export interface StepRunContext {
  /** How long the step may take (ms): its timeout, already cut to the execution's deadline. */
  readonly timeoutMs: number;
  /** Stores a binary artifact (e.g. a screenshot) and returns its id. */
  saveArtifact(kind: 'screenshot', contentType: string, data: Buffer): Promise<string>;
  /**
   * The most this step's output may take (bytes of JSON; see the runner's OutputBudget): a read
   * inside the page is measured there against it before anything is transferred.
   */
  readonly maxOutputBytes: number;
  /**
   * The value of a credential's field, current now (a TOTP code is made for this moment). Refused
   * (`credential_origin_mismatch`) unless the frame of the element `targetSelector` (a located
   * step's full selector) finds is at one of the credential's origins. That element is masked in
   * every screenshot of the run from here on, and the value never reaches the run's outputs, logs
   * or errors (the runner redacts it).
   */
  credentialValue(value: CredentialValue, targetSelector: string): Promise<string>;
  /**
   * A screenshot of the page as every screenshot of the run is taken: with the elements filled
   * from a credential painted over (Playwright's `mask`).
   */
  screenshot(options: Parameters<StepPage['screenshot']>[0]): Promise<Buffer>;
}
