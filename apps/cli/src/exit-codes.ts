/**
 * What `botfleet` exits with, so scripts can tell outcomes apart. Documented in docs/cli.md; the
 * numbers are part of the CLI's contract and never change meaning.
 */
export const EXIT = {
  /** Done; with `runs trigger --wait`, the run completed. */
  ok: 0,
  /** `runs trigger --wait`: the run ended failed or cancelled. */
  runFailed: 1,
  /** Bad command line: unknown command or flag, missing argument, unreadable file. */
  usage: 2,
  /** The API answered with an error (4xx or 5xx); the message and code are printed. */
  apiError: 3,
  /** The API could not be reached (refused, DNS, TLS). */
  network: 4,
  /** `runs trigger --wait`: the run was still going when `--timeout` ran out. */
  timeout: 5,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
