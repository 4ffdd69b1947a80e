import {
  createCredential,
  deleteCredential,
  getCredential,
  listCredentials,
  updateCredential,
  type Credential,
  type UpdateCredentialData,
} from '@botfleet/sdk';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { print, table, timestamp } from '../output';
import { UsageError } from '../usage-error';

/*
 * `botfleet credentials ...`: logins that `fill` steps take values from. The password and the
 * TOTP secret are never taken as arguments, which any user of the machine can read (`ps`,
 * /proc/<pid>/cmdline) and shells keep in their history: they come from standard input, a file or
 * an environment variable the command line names, as `docker login --password-stdin` does.
 * Nothing prints them back; the API never answers them.
 */

function describeCredential(credential: Credential): string {
  const totp = credential.totp;
  return table([
    ['id', credential.id],
    ['name', credential.name],
    ['username', credential.username ?? '-'],
    [
      'origins',
      credential.origins.length > 0 ? credential.origins.join(' ') : '- (fills nowhere until an admin sets them)',
    ],
    ['password', credential.hasPassword ? 'set' : '-'],
    ['totp', totp ? `${totp.algorithm}, ${totp.digits} digits, ${totp.period} s` : '-'],
    ['createdAt', timestamp(credential.createdAt)],
    ['updatedAt', timestamp(credential.updatedAt)],
  ]);
}

/** Where a secret may come from; the value flags exist only to refuse a secret given as an argument. */
const SECRET_OPTIONS = {
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'password-file': { type: 'string' },
  'password-env': { type: 'string' },
  'totp-secret': { type: 'string' },
  'totp-secret-file': { type: 'string' },
  'totp-secret-env': { type: 'string' },
  'otpauth-uri': { type: 'string' },
  'otpauth-uri-file': { type: 'string' },
  'otpauth-uri-env': { type: 'string' },
} as const;

interface SecretValues {
  password?: string;
  'password-stdin'?: boolean;
  'password-file'?: string;
  'password-env'?: string;
  'totp-secret'?: string;
  'totp-secret-file'?: string;
  'totp-secret-env'?: string;
  'otpauth-uri'?: string;
  'otpauth-uri-file'?: string;
  'otpauth-uri-env'?: string;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** A file's or a pipe's one line: `echo secret > file` and `printf secret |` give the same value. */
const withoutFinalNewline = (text: string) => text.replace(/\r?\n$/, '');

function readSecretFile(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new UsageError(`--${flag}: cannot read ${file}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}

function readSecretEnv(env: CommandContext['env'], name: string, flag: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new UsageError(`--${flag}: the variable ${name} is not set`);
  return value;
}

/** The secrets the command line points at: at most one source each, read without ever echoing them. */
async function readSecrets({ env, stdin }: CommandContext, values: SecretValues) {
  for (const flag of ['password', 'totp-secret', 'otpauth-uri'] as const) {
    if (values[flag] !== undefined) {
      throw new UsageError(
        `--${flag} is not taken as an argument (other users can read it in ps); ` +
          `use --${flag === 'password' ? 'password-stdin, --password-file' : `${flag}-file`} or --${flag}-env`,
      );
    }
  }
  const passwordSources = [values['password-stdin'], values['password-file'], values['password-env']];
  if (passwordSources.filter((v) => v !== undefined && v !== false).length > 1) {
    throw new UsageError('give the password one way: --password-stdin, --password-file or --password-env');
  }
  const totpSources = [
    values['totp-secret-file'],
    values['totp-secret-env'],
    values['otpauth-uri-file'],
    values['otpauth-uri-env'],
  ];
  if (totpSources.filter((v) => v !== undefined).length > 1) {
    throw new UsageError(
      'give the TOTP one way: --totp-secret-file, --totp-secret-env, --otpauth-uri-file or --otpauth-uri-env',
    );
  }
  let password: string | undefined;
  if (values['password-stdin']) password = withoutFinalNewline(await readAll(stdin));
  if (values['password-file'] !== undefined) {
    password = withoutFinalNewline(readSecretFile(values['password-file'], 'password-file'));
  }
  if (values['password-env'] !== undefined) password = readSecretEnv(env, values['password-env'], 'password-env');
  if (password === '') throw new UsageError('the password given is empty');

  const totp: { totpSecret?: string; otpauthUri?: string } = {};
  if (values['totp-secret-file'] !== undefined) {
    totp.totpSecret = readSecretFile(values['totp-secret-file'], 'totp-secret-file').trim();
  }
  if (values['totp-secret-env'] !== undefined) {
    totp.totpSecret = readSecretEnv(env, values['totp-secret-env'], 'totp-secret-env').trim();
  }
  if (values['otpauth-uri-file'] !== undefined) {
    totp.otpauthUri = readSecretFile(values['otpauth-uri-file'], 'otpauth-uri-file').trim();
  }
  if (values['otpauth-uri-env'] !== undefined) {
    totp.otpauthUri = readSecretEnv(env, values['otpauth-uri-env'], 'otpauth-uri-env').trim();
  }
  return { ...(password === undefined ? {} : { password }), ...totp };
}

/** The one credential id a command takes. */
function oneCredentialId(positionals: string[], command: string): string {
  const [credentialId, ...extra] = positionals;
  if (!credentialId || extra.length > 0) throw new UsageError(`${command} takes one credential id`);
  return credentialId;
}

/** `botfleet credentials list [--limit n] [--cursor c]`: one page, newest first. */
export async function listCredentialsCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values } = parseArgs({ args, options: { limit: { type: 'string' }, cursor: { type: 'string' } } });
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw new UsageError('--limit must be a whole number from 1 to 100');
  }
  const { data } = await listCredentials({ client, query: { limit, cursor: values.cursor }, throwOnError: true });
  print(output, data, (page) => {
    if (page.data.length === 0) return 'No credentials.';
    const rows = page.data.map((c: Credential) => [
      c.id,
      c.username ?? '-',
      c.hasPassword ? 'yes' : '-',
      c.hasTotp ? 'yes' : '-',
      c.name,
    ]);
    const more = page.nextCursor ? `\nMore: botfleet credentials list --cursor ${page.nextCursor}` : '';
    return table([['ID', 'USERNAME', 'PASSWORD', 'TOTP', 'NAME'], ...rows]) + more;
  });
}

/** `botfleet credentials get <credentialId>`: what it holds, never the password or the TOTP secret. */
export async function getCredentialCommand({ client, output, args }: CommandContext): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const credentialId = oneCredentialId(positionals, 'credentials get');
  const { data } = await getCredential({ client, path: { credentialId }, throwOnError: true });
  print(output, data, describeCredential);
}

/** `--origin O`, repeatable: the sites a credential's values may be filled into (the API checks each). */
const ORIGIN_OPTION = { origin: { type: 'string', multiple: true } } as const;

/**
 * `botfleet credentials create --name N --origin O [--origin O2 ...] [--username U]
 * [--password-stdin | --password-file F | --password-env VAR] [--totp-secret-file F |
 * --totp-secret-env VAR | --otpauth-uri-file F | --otpauth-uri-env VAR]`.
 */
export async function createCredentialCommand(context: CommandContext): Promise<void> {
  const { client, output, args } = context;
  const { values } = parseArgs({
    args,
    options: { name: { type: 'string' }, username: { type: 'string' }, ...ORIGIN_OPTION, ...SECRET_OPTIONS },
  });
  if (!values.name) throw new UsageError('credentials create needs --name');
  const secrets = await readSecrets(context, values);
  if (!values.origin) {
    throw new UsageError('credentials create needs --origin (repeatable): the sites its values may be filled into');
  }
  const { data } = await createCredential({
    client,
    body: {
      name: values.name,
      origins: values.origin,
      ...(values.username === undefined ? {} : { username: values.username }),
      ...secrets,
    },
    throwOnError: true,
  });
  print(output, data, describeCredential);
}

/**
 * `botfleet credentials update <credentialId> [--name N] [--origin O ...] [--username U |
 * --remove-username] [a password source | --remove-password] [a TOTP source | --remove-totp]`:
 * renames or rotates; `--origin` replaces its origins (an admin key only).
 */
export async function updateCredentialCommand(context: CommandContext): Promise<void> {
  const { client, output, args } = context;
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      username: { type: 'string' },
      'remove-username': { type: 'boolean' },
      'remove-password': { type: 'boolean' },
      'remove-totp': { type: 'boolean' },
      ...ORIGIN_OPTION,
      ...SECRET_OPTIONS,
    },
  });
  const credentialId = oneCredentialId(positionals, 'credentials update');
  const secrets = await readSecrets(context, values);
  const conflicts: [boolean, string][] = [
    [values['remove-username'] === true && values.username !== undefined, '--username and --remove-username'],
    [values['remove-password'] === true && secrets.password !== undefined, 'a password and --remove-password'],
    [
      values['remove-totp'] === true && (secrets.totpSecret !== undefined || secrets.otpauthUri !== undefined),
      'a TOTP and --remove-totp',
    ],
  ];
  const conflict = conflicts.find(([clash]) => clash);
  if (conflict) throw new UsageError(`credentials update takes ${conflict[1]}, not both`);
  const body: UpdateCredentialData['body'] = {
    ...(values.name === undefined ? {} : { name: values.name }),
    ...(values.origin === undefined ? {} : { origins: values.origin }),
    ...(values.username === undefined ? {} : { username: values.username }),
    ...(values['remove-username'] ? { username: null } : {}),
    ...(values['remove-password'] ? { password: null } : {}),
    ...(values['remove-totp'] ? { totpSecret: null } : {}),
    ...secrets,
  };
  if (Object.keys(body).length === 0) throw new UsageError('credentials update needs something to change');
  const { data } = await updateCredential({ client, path: { credentialId }, body, throwOnError: true });
  print(output, data, describeCredential);
}

/** `botfleet credentials delete <credentialId>`: refused by the API while a bot's steps fill from it. */
export async function deleteCredentialCommand({ client, output, args }: CommandContext): Promise<void> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const credentialId = oneCredentialId(positionals, 'credentials delete');
  await deleteCredential({ client, path: { credentialId }, throwOnError: true });
  print(output, { id: credentialId, deleted: true }, () => `Deleted ${credentialId}`);
}
