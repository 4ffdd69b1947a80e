/** Where a command writes: standard output for results, standard error for messages. */
export interface Output {
  /** Whether --json was given: one JSON document on stdout instead of text. */
  json: boolean;
  out(text: string): void;
  err(text: string): void;
}

export function processOutput(json: boolean): Output {
  return {
    json,
    out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}

/** Prints `value` as JSON with --json, else the text `describe` makes of it. */
export function print<T>(output: Output, value: T, describe: (value: T) => string): void {
  output.out(output.json ? JSON.stringify(value, null, 2) : describe(value));
}

/** Lines of columns, padded so they line up. */
export function table(rows: string[][]): string {
  const widths = rows.reduce<number[]>((acc, row) => row.map((cell, i) => Math.max(acc[i] ?? 0, cell.length)), []);
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '))
    .join('\n');
}

export function timestamp(ms: number | null | undefined): string {
  return typeof ms === 'number' ? new Date(ms).toISOString() : '-';
}
