/**
 * Readers for values that crossed the bridge from a script. Everything arrives as parsed JSON,
 * so each reader checks the type it needs; a wrong value is the script's error, reported with
 * the method's name so the script's author can find it.
 */
export class BridgeArgs {
  constructor(
    readonly method: string,
    private readonly values: readonly unknown[],
  ) {}

  string(index: number, label: string): string {
    const value = this.values[index];
    if (typeof value !== 'string') throw this.error(`${label} must be a string`);
    return value;
  }

  optionalString(index: number, label: string): string | undefined {
    const value = this.values[index];
    return value === undefined || value === null ? undefined : this.string(index, label);
  }

  stringOrStrings(index: number, label: string): string | string[] {
    const value = this.values[index];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) return value;
    throw this.error(`${label} must be a string or an array of strings`);
  }

  number(index: number, label: string): number {
    const value = this.values[index];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw this.error(`${label} must be a number`);
    return value;
  }

  /** A JSON value handed on to the page as is (null when omitted). */
  json(index: number): unknown {
    return this.values[index] ?? null;
  }

  options(index: number, allowed: readonly string[]): BridgeOptions {
    const value = this.values[index];
    if (value === undefined || value === null) return new BridgeOptions(this, {});
    if (typeof value !== 'object' || Array.isArray(value)) throw this.error('options must be an object');
    const record = value as Record<string, unknown>;
    // Only named options reach Playwright: others (e.g. screenshot's `path`) could touch the host.
    const unknown = Object.keys(record).find((key) => !allowed.includes(key));
    if (unknown !== undefined) throw this.error(`option '${unknown}' is not supported`);
    return new BridgeOptions(this, record);
  }

  error(message: string): Error {
    return new Error(`page.${this.method}: ${message}`);
  }
}

export class BridgeOptions {
  constructor(
    private readonly args: BridgeArgs,
    private readonly record: Readonly<Record<string, unknown>>,
  ) {}

  number(key: string): number | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw this.args.error(`option '${key}' must be a non-negative number`);
    }
    return value;
  }

  string(key: string): string | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.args.error(`option '${key}' must be a string`);
    return value;
  }

  boolean(key: string): boolean | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw this.args.error(`option '${key}' must be a boolean`);
    return value;
  }

  oneOf<T extends string>(key: string, choices: readonly T[]): T | undefined {
    const value = this.record[key];
    if (value === undefined || value === null) return undefined;
    const choice = choices.find((c) => c === value);
    if (choice === undefined) throw this.args.error(`option '${key}' must be one of ${choices.join(', ')}`);
    return choice;
  }
}
