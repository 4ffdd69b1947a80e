/**
 * Runs a bench script's `main` as a command: exit 0 once it resolved, or its error's stack on
 * stderr and exit 1. Every script closes what it opened before it resolves; exiting explicitly
 * keeps a straggling idle timer in a client library (pg pool, ioredis reconnect) from holding
 * the process open after it has reported.
 */
export function runAsCommand(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(
        `[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
