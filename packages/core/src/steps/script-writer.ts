import type { CredentialValue } from '../sessions/credential';
/**
 * A function a generated script calls, emitted once after the default export (function
 * declarations are hoisted). One used as a page function runs in the web page, so it must not
 * use anything from the script's scope.
 */
export interface ScriptHelper {
  readonly name: string;
  readonly source: string;
  /** Helpers it calls; they are emitted before it. */
  readonly needs?: readonly ScriptHelper[];
}

/**
 * How a step action's `toScript` turns its step into code. Every value from the step goes
 * through it, so no input can break out of a string literal.
 */
export interface ScriptWriter {
  /** A JavaScript expression for a string field; `{{params.x}}` placeholders read `params`. */
  text(template: string): string;
  /** `, { <extra>, timeout: <the step's timeout> }`, or '' when there is nothing to pass. */
  options(extra?: readonly string[]): string;
  /**
   * A JavaScript expression standing for a credential's field: it names the credential and the
   * field, never the value (values stay with the worker; see docs/sessions.md).
   */
  credential(value: CredentialValue): string;
  /** A number from the step as a literal (the schema already checked it). */
  number(value: number): string;
  /** Emits `helper` (and what it needs) with the script; returns the name to call it by. */
  use(helper: ScriptHelper): string;
}
