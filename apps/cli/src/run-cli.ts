import { BotfleetApiError, BotfleetNetworkError } from '@botfleet/sdk';
import { parseArgs } from 'node:util';
import {
  botManifestCommand,
  botStepsCommand,
  createBotCommand,
  importBotCommand,
  listBotsCommand,
} from './commands/bots';
import { botVersionCommand, botVersionsCommand, restoreBotVersionCommand } from './commands/bot-versions';
import {
  createCredentialCommand,
  deleteCredentialCommand,
  getCredentialCommand,
  listCredentialsCommand,
  updateCredentialCommand,
} from './commands/credentials';
import { createKeyCommand } from './commands/keys';
import {
  createProfileCommand,
  deleteProfileCommand,
  exportProfileCommand,
  getProfileCommand,
  importProfileCommand,
  listProfilesCommand,
  profileVersionsCommand,
  renameProfileCommand,
  resetProfileCommand,
} from './commands/profiles';
import { botResultsCommand } from './commands/results';
import {
  getRunCommand,
  runDeliveriesCommand,
  runLogsCommand,
  triggerRunCommand,
  watchRunCommand,
} from './commands/runs';
import { clientFor, type CommandContext } from './context';
import { EXIT, type ExitCode } from './exit-codes';
import { HELP } from './help';
import { processOutput, type Output } from './output';
import { UsageError } from './usage-error';

type Command = (context: CommandContext) => Promise<ExitCode | void>;

const COMMANDS: Record<string, Record<string, Command>> = {
  bots: {
    list: listBotsCommand,
    create: createBotCommand,
    import: importBotCommand,
    steps: botStepsCommand,
    manifest: botManifestCommand,
    results: botResultsCommand,
    versions: botVersionsCommand,
    version: botVersionCommand,
    restore: restoreBotVersionCommand,
  },
  runs: {
    trigger: triggerRunCommand,
    get: getRunCommand,
    watch: watchRunCommand,
    logs: runLogsCommand,
    deliveries: runDeliveriesCommand,
  },
  profiles: {
    list: listProfilesCommand,
    get: getProfileCommand,
    create: createProfileCommand,
    rename: renameProfileCommand,
    delete: deleteProfileCommand,
    reset: resetProfileCommand,
    export: exportProfileCommand,
    import: importProfileCommand,
    versions: profileVersionsCommand,
  },
  keys: { create: createKeyCommand },
  credentials: {
    list: listCredentialsCommand,
    get: getCredentialCommand,
    create: createCredentialCommand,
    update: updateCredentialCommand,
    delete: deleteCredentialCommand,
  },
};

/** Flags every command takes, wherever they appear on the line. */
const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  'api-key': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

/** Splits the global flags from the rest, which the command parses (strictly) itself. */
function takeGlobals(argv: string[]) {
  const { tokens } = parseArgs({
    args: argv,
    options: GLOBAL_OPTIONS,
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const globals: { url?: string; apiKey?: string; json: boolean; help: boolean; version: boolean } = {
    json: false,
    help: false,
    version: false,
  };
  const taken = new Set<number>();
  for (const token of tokens) {
    if (token.kind !== 'option' || !(token.name in GLOBAL_OPTIONS)) continue;
    if (token.name === 'url' || token.name === 'api-key') {
      if (token.value === undefined) throw new UsageError(`--${token.name} needs a value`);
      if (token.name === 'url') globals.url = token.value;
      else globals.apiKey = token.value;
      taken.add(token.index);
      // `--url value` (not `--url=value`) spends the next argument too.
      if (token.inlineValue === false) taken.add(token.index + 1);
    } else {
      globals[token.name as 'json' | 'help' | 'version'] = true;
      taken.add(token.index);
    }
  }
  return { globals, rest: argv.filter((_arg, i) => !taken.has(i)) };
}

function reportError(output: Output, err: unknown): ExitCode {
  if (
    err instanceof UsageError ||
    (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
  ) {
    output.err(
      output.json
        ? JSON.stringify({ error: { code: 'usage', message: err.message } })
        : `botfleet: ${err.message}\nTry botfleet --help.`,
    );
    return EXIT.usage;
  }
  if (err instanceof BotfleetApiError) {
    const error = {
      code: err.code,
      message: err.message,
      status: err.status,
      details: err.details,
      requestId: err.requestId,
    };
    output.err(
      output.json
        ? JSON.stringify({ error })
        : `botfleet: ${err.message} (${err.status} ${err.code}${err.requestId ? `, request ${err.requestId}` : ''})`,
    );
    return EXIT.apiError;
  }
  if (err instanceof BotfleetNetworkError) {
    output.err(
      output.json ? JSON.stringify({ error: { code: 'network', message: err.message } }) : `botfleet: ${err.message}`,
    );
    return EXIT.network;
  }
  throw err;
}

/** Runs one command line and answers the exit code (see exit-codes.ts). */
export async function runCli(
  argv: string[],
  env: Record<string, string | undefined>,
  version: string,
): Promise<ExitCode> {
  let output = processOutput(argv.includes('--json'));
  try {
    const { globals, rest } = takeGlobals(argv);
    output = processOutput(globals.json);
    if (globals.version) {
      output.out(version);
      return EXIT.ok;
    }
    const [group, name, ...args] = rest;
    if (globals.help || group === undefined || group === 'help') {
      output.out(HELP);
      return group === undefined && !globals.help ? EXIT.usage : EXIT.ok;
    }
    const command = COMMANDS[group]?.[name ?? ''];
    if (!command) {
      const known = COMMANDS[group] ? Object.keys(COMMANDS[group]).join(', ') : null;
      throw new UsageError(known ? `botfleet ${group} takes one of: ${known}` : `Unknown command '${group}'`);
    }
    const client = clientFor({ url: globals.url ?? env.BOTFLEET_URL, apiKey: globals.apiKey ?? env.BOTFLEET_API_KEY });
    return (await command({ client, output, args, env, stdin: process.stdin, stdout: process.stdout })) ?? EXIT.ok;
  } catch (err) {
    return reportError(output, err);
  }
}
