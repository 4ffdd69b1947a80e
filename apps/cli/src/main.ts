import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './run-cli';

/** The CLI's own version, from its package.json (one directory up from src/ and from dist/). */
function cliVersion(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

runCli(process.argv.slice(2), process.env, cliVersion()).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // A bug rather than an outcome: say so, with the stack, and exit like an API error would not.
    process.stderr.write(
      `botfleet: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 70;
  },
);
