import type { CredentialValue } from '@botfleet/core';
import type { Locator, Page } from 'playwright-core';

/** Gives a credential field's value for this run (the worker opens the sealed credential). */
export type CredentialSource = (value: CredentialValue) => Promise<string>;

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
   * The field's value, current now; its password or TOTP code is redacted from here on, and
   * `targetSelector`'s element (whatever the field) is masked in every screenshot from
   * here on (before the value goes in, so a failure screenshot taken mid-fill is masked too).
   */
  async credentialValue(value: CredentialValue, targetSelector: string): Promise<string> {
    if (!this.maskSelectors.includes(targetSelector)) this.maskSelectors.push(targetSelector);
    if (!this.source) throw new Error(`credential ${value.credential} cannot be used here: no credentials in this run`);
    const secret = await this.source(value);
    // A username is not a secret (the API shows it back); the password and the code are.
    if (value.field !== 'username') this.add(secret);
    return secret;
  }

  /**
   * Treats `value` as secret from now on, unless it is shorter than `minLength`: a short value is
   * too common to cut out of other text (a credential's, 4; a cookie's, 16, since short cookies
   * are flags such as `1` or `en-US`, not tokens).
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

  /** The elements every screenshot of the run hides, on `page` (Playwright's screenshot `mask`). */
  masksOn(page: Page): Locator[] {
    return this.maskSelectors.map((selector) => page.locator(selector));
  }
}
