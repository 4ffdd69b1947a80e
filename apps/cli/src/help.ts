export const HELP = `botfleet: bots, runs, browser profiles and API keys through the botfleet API

Usage: botfleet <command> [arguments] [--json] [--url URL] [--api-key KEY]
       botfleet admin keys create|orgs limits ...   Operator commands on the server's database
                                                    (from a checkout: npm run -s botfleet -- admin)

Commands:
  bots list [--q|--search TEXT] [--tag T]...   The organization's bots with their last run, newest first
        [--status active|paused]               (--q: name, id or URL contains it; --tag repeated: every one)
        [--sort=-createdAt|createdAt|name|-lastRunAt] [--limit N] [--cursor C]
  bots create --name N --target URL            Create a bot
        [--kind extraction|action] [--description D] [--tag T]...
  bots import <recording.json>                 Create a bot from a Chrome DevTools Recorder recording
        [--name N] [--target URL]
  bots steps <botId> [--file steps.json]       A bot's steps; with --file, replace them first
  bots manifest <botId> [--file manifest.json] A bot's manifest; with --file, update it first
  bots versions <botId>                        A bot's versions, newest first, with what each changed
        [--limit N] [--cursor C]
  bots version <botId> <version>               One version's steps, scripts and manifest (secrets masked)
  bots restore <botId> <version>               Make a version current again, as a new version
  bots results <botId> [--format F]            The bot's runs' data, oldest first, streamed to stdout
        [--from T] [--to T] [--fields a,b]     (F: json, jsonl or csv; T: ISO 8601, a date or Unix ms)
        [--items-path PATH]                    e.g. botfleet bots results <botId> --format csv > out.csv
  runs trigger <botId> [--params k=v]...       Run a bot; prints the execution id
        [--wait [--timeout SECONDS]]           ... or wait for the end and print the data or the failure
        [--idempotency-key K]
  runs get <executionId>                       A run, with its data or failure
  runs watch <executionId>                     Follow a run live: status, steps, logs, then its data
  runs watch --all [--bot B] [--status S,...]  Follow the organization's runs' status changes (Ctrl-C stops)
  runs logs <executionId>                      A run's logs
  runs deliveries <executionId>                A run's webhook deliveries, with their attempts
  profiles list [--limit N] [--cursor C]       The organization's browser profiles, newest first
  profiles get <profileId>                     A profile: its origins with cookie and storage counts
  profiles create --name N [--description D]   Create an empty profile
  profiles rename <profileId> --name N         Rename a profile
  profiles delete <profileId>                  Delete a profile (refused while a bot or a run uses it)
  profiles reset <profileId>                   Empty a profile's state
  profiles export <profileId> [--out FILE]     Its state as Playwright storage-state JSON (admin key;
                                               holds live sessions: keep it like a password)
  profiles import <profileId> <state.json>     Import a storage state as its next version (admin key)
  profiles versions <profileId>                Its kept states, newest first
  credentials list [--limit N] [--cursor C]    The organization's credentials (never their secrets)
  credentials get <credentialId>               A credential: name, username, whether a password and TOTP are set
  credentials create --name N --origin O       Create a credential filled only on its origins
        [--origin O2 ...] [--username U]        (https://host[:port]); secrets never as arguments:
        [--password-stdin | --password-file F | --password-env VAR]
        [--totp-secret-file F | --totp-secret-env VAR | --otpauth-uri-file F | --otpauth-uri-env VAR]
  credentials update <credentialId> [--name N] Rename or rotate (the same secret flags as create)
        [--username U | --remove-username] [--remove-password] [--remove-totp]
        [--origin O ...]                        Replace its origins (needs an admin key)
  credentials delete <credentialId>            Delete a credential (refused while a bot's steps use it)
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
