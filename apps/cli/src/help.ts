export const HELP = `botfleet: bots, runs and API keys through the botfleet API

Usage: botfleet <command> [arguments] [--json] [--url URL] [--api-key KEY]

Commands:
  bots list [--limit N] [--cursor C]           The organization's bots, newest first
  bots create --name N --target URL            Create a bot
        [--kind extraction|action] [--description D] [--tag T]...
  bots import <recording.json>                 Create a bot from a Chrome DevTools Recorder recording
        [--name N] [--target URL]
  bots steps <botId> [--file steps.json]       A bot's steps; with --file, replace them first
  bots manifest <botId> [--file manifest.json] A bot's manifest; with --file, update it first
  runs trigger <botId> [--params k=v]...       Run a bot; prints the execution id
        [--wait [--timeout SECONDS]]           ... or wait for the end and print the data or the failure
        [--idempotency-key K]
  runs get <executionId>                       A run, with its data or failure
  runs logs <executionId>                      A run's logs
  runs deliveries <executionId>                A run's webhook deliveries, with their attempts
  keys create --name N --permission P          Create an API key (needs an admin key)

Options:
  --url URL        The API, e.g. http://localhost:3000 (default: $BOTFLEET_URL)
  --api-key KEY    An API key, bf_... (default: $BOTFLEET_API_KEY)
  --json           Print JSON (errors too, on stderr)
  --help, -h       This help
  --version        The CLI's version

Exit codes: 0 ok, 1 the run failed or was cancelled (--wait), 2 bad command line,
3 the API answered an error, 4 the API could not be reached, 5 --wait timed out.
`;
