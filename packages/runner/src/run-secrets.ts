import { assertCredentialOrigin, originOfUrl, type CredentialValue } from '@botfleet/core';
import type { Locator, Page } from 'playwright-core';
import { secretTextSelector } from './secret-text-engine';

/** A credential as a fill needs it: where it may go, and its field's value, opened only on demand. */
export interface RunCredential {
  /** Normalised origins (`https://host[:port]`); empty for one stored before origins existed. */
  readonly origins: readonly string[];
  /** The field's value, current now (a TOTP code); called only once the origin is checked. */
  reveal(): Promise<string>;
}

/** Looks up the credential a fill names, for this run (the worker reads it from the database). */
export type CredentialSource = (value: CredentialValue) => Promise<RunCredential>;

/**
 * A profile's cookie and storage values this long or longer are secret values of every run on it;
 * shorter ones are flags and settings (`1`, `en-US`, `dark`) found all over any page, and cutting
 * them out would garble every text the run keeps (docs/sessions.md).
 */
export const PROFILE_SECRET_MIN_LENGTH = 8;

/** What a redacted value reads as. */
export const REDACTED = '********';

/*
 * Secret values a run came to hold: credential fields it filled, and (from the worker) cookie and
 * storage values of its profile. One registry per run is the one check every text the run
 * writes goes through before it is stored (step outputs, log lines, the failure's error), and
 * the list of elements every screenshot masks.
 */
export class RunSecrets {
  private readonly values = new Set<string>();
  /** Longest first, so a value containing another is replaced whole. */
  private ordered: string[] = [];
  private readonly maskSelectors: string[] = [];

  constructor(private readonly source?: CredentialSource) {}

  /**
   * The field's value, current now, for the element `targetSelector` finds on `page`: the one way
   * a run gets a credential's value. The frame that element lives in (a child frame's own, not
   * the page's), and each frame above it, must be at one of the credential's origins (assertCredentialOrigin), checked
   * before the value is opened, so a page elsewhere receives no character of it. The password or
   * TOTP code is redacted from here on, and the element (whatever the field) is masked in every
   * screenshot from here on (before the value goes in, so a failure screenshot taken mid-fill is
   * masked too).
   */
  async credentialValue(
    value: CredentialValue,
    page: Page,
    targetSelector: string,
    timeoutMs: number,
  ): Promise<string> {
    if (!this.maskSelectors.includes(targetSelector)) this.maskSelectors.push(targetSelector);
    if (!this.source) throw new Error(`credential ${value.credential} cannot be used here: no credentials in this run`);
    const credential = await this.source(value);
    assertCredentialOrigin(value.credential, credential.origins, await frameOriginsOf(page, targetSelector, timeoutMs));
    const secret = await credential.reveal();
    // A username is not a secret (the API shows it back); the password and the code are.
    if (value.field !== 'username') this.add(secret);
    return secret;
  }

  /**
   * Treats `value` as secret from now on, unless it is shorter than `minLength`: a short value is
   * too common to cut out of other text (a credential's, 4; a profile's, PROFILE_SECRET_MIN_LENGTH).
   */
  add(value: string, minLength = 4): void {
    if (value.length < minLength || this.values.has(value)) return;
    // As a posted form or a query string carries it too (a HAR holds both; see run-evidence.ts).
    const formEncoded = new URLSearchParams({ v: value }).toString().slice(2);
    for (const form of [value, encodeURIComponent(value), formEncoded]) this.values.add(form);
    this.ordered = [...this.values].sort((a, b) => b.length - a.length);
  }

  /** Whether the run holds any secret value (a credential it filled, its profile's cookies). */
  get empty(): boolean {
    return this.values.size === 0;
  }

  /** `text` with every secret value replaced by REDACTED. */
  redact(text: string): string {
    let out = text;
    for (const value of this.ordered) if (out.includes(value)) out = out.split(value).join(REDACTED);
    return out;
  }

  /** Whether `text` holds any secret value of the run (as is, or encoded as a form or a query carries it). */
  containsSecret(text: string): boolean {
    return this.ordered.some((value) => text.includes(value));
  }

  /** A JSON-shaped value (a step's output data) with every string in it, keys too, redacted. */
  redactData(data: unknown): unknown {
    if (this.ordered.length === 0) return data;
    if (typeof data === 'string') return this.redact(data);
    if (Array.isArray(data)) return data.map((item) => this.redactData(item));
    if (data !== null && typeof data === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(data)) out[this.redact(key)] = this.redactData(item);
      return out;
    }
    return data;
  }

  /**
   * The elements every screenshot of the run hides, on `page` (Playwright's screenshot `mask`):
   * those filled from a credential, and in every frame each element that shows a secret value
   * of the run in its text, its input value or an attribute (secret-text-engine.ts), wherever
   * the page put it. Resolved by Playwright as it takes the screenshot.
   */
  masksOn(page: Page): Locator[] {
    const filled = this.maskSelectors.map((selector) => page.locator(selector));
    if (this.ordered.length === 0) return filled;
    const showing = secretTextSelector(this.ordered);
    // A detached frame shows nothing, and a mask on it would fail the whole screenshot.
    const frames = page.frames().filter((frame) => !frame.isDetached());
    return [...filled, ...frames.map((frame) => frame.locator(showing))];
  }
}

/**
 * The origins of the frame the first element `selector` finds lives in and of each frame above
 * it, innermost first, as the browser reports the frames' URLs (the page's scripts cannot change
 * an origin); "null" for a frame without one (about:blank, srcdoc).
 */
async function frameOriginsOf(page: Page, selector: string, timeoutMs: number): Promise<string[]> {
  const handle = await page.locator(selector).first().elementHandle({ timeout: timeoutMs });
  try {
    const origins: string[] = [];
    for (let frame = await handle.ownerFrame(); frame; frame = frame.parentFrame())
      origins.push(originOfUrl(frame.url()));
    return origins.length > 0 ? origins : ['null'];
  } finally {
    await handle.dispose();
  }
}
