// `botfleet`, from a checkout (`npm run -s botfleet -- ...`): one command for both command lines.
// `botfleet admin <group> <command>` is the operator's (apps/launcher/src/cli.ts: keys and limits
// written straight to the database, so it works before any API key exists); everything else is the
// API client (apps/cli, bots, runs and keys with an API key). The two stay separate programs: the
// client knows only the SDK, the operator's commands need the database. `npm run cli` is kept as
// the alias of `botfleet admin` that older docs and scripts use.

const ADMIN = 'admin';

/** Loads the entry the command line names; each runs its command as it loads. */
function runEntry(): Promise<unknown> {
  if (process.argv[2] !== ADMIN) return import('../apps/cli/src/main');
  // The operator's CLI reads its command from process.argv, as when it is run on its own.
  process.argv.splice(2, 1);
  return import('../apps/launcher/src/cli');
}

runEntry().catch((err: unknown) => {
  process.stderr.write(`botfleet: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 70;
});
