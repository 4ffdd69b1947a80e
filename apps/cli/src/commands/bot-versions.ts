import {
  getBotVersion,
  listBotVersions,
  restoreBotVersion,
  type BotVersion,
  type BotVersionSummary,
} from '@botfleet/sdk';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { print, table, timestamp } from '../output';
import { UsageError } from '../usage-error';

/** `<botId> <version>` of a command, the version a whole number from 1. */
function botIdAndVersion(args: string[], command: string): { botId: string; version: number } {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [botId, given, ...extra] = positionals;
  if (!botId || !given || extra.length > 0) throw new UsageError(`${command} takes a bot id and a version number`);
  const version = Number(given);
  if (!/^[1-9][0-9]*$/.test(given) || !Number.isSafeInteger(version)) {
    throw new UsageError(`${command}: the version is a whole number from 1 (got '${given}')`);
  }
  return { botId, version };
}

const count = ({ before, after }: { before: number | null; after: number }, what: string) =>
  before === null || before === after ? null : `${what} ${before} -> ${after}`;

/** One line on what a version changed: counts that moved, manifest sections, and what it restored. */
function describeChange(version: BotVersionSummary): string {
  if (version.version === 1 && version.changes.length === 0) return 'created';
  const { summary } = version;
  const parts = [
    version.changes.includes('steps') ? (count(summary.steps, 'steps') ?? 'steps edited') : null,
    version.changes.includes('scripts') ? (count(summary.scripts, 'scripts') ?? 'scripts edited') : null,
    summary.manifestSections.length > 0 ? `manifest: ${summary.manifestSections.join(', ')}` : null,
    version.restoredFrom === null ? null : `restored from ${version.restoredFrom}`,
  ];
  return parts.filter((part) => part !== null).join('; ') || 'no change';
}

/** `botfleet bots versions <botId> [--limit n] [--cursor c]`: the bot's versions, newest first. */
export async function botVersionsCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { limit: { type: 'string' }, cursor: { type: 'string' } },
  });
  const [botId, ...extra] = positionals;
  if (!botId || extra.length > 0) throw new UsageError('bots versions takes one bot id');
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw new UsageError('--limit must be a whole number from 1 to 100');
  }
  const { data } = await listBotVersions({
    client,
    path: { botId },
    query: { limit, cursor: values.cursor },
    throwOnError: true,
  });
  print(output, data, (page) => {
    const rows = page.data.map((v: BotVersionSummary) => [
      `${v.version}${v.current ? '*' : ''}`,
      timestamp(v.createdAt),
      describeChange(v),
    ]);
    const more = page.nextCursor ? `\nMore: botfleet bots versions ${botId} --cursor ${page.nextCursor}` : '';
    return `${table([['VERSION', 'CREATED', 'CHANGE'], ...rows])}\n(* current: what new runs run)${more}`;
  });
}

function describeVersion(version: BotVersion): string {
  const head = table([
    ['version', `${version.version}${version.current ? ' (current)' : ''}`],
    ['createdAt', timestamp(version.createdAt)],
    ['change', describeChange(version)],
  ]);
  const steps = version.steps.map((step) => `  ${step.index ?? '-'}  ${JSON.stringify(step)}`);
  const scripts = version.scripts.map(
    (script) => `  ${script.id}  ${script.origin}${script.active ? ' (active)' : ''}  ${script.name}`,
  );
  return [
    head,
    `steps:${steps.length === 0 ? ' none' : ''}`,
    ...steps,
    `scripts:${scripts.length === 0 ? ' none' : ''}`,
    ...scripts,
    'manifest (secrets masked):',
    JSON.stringify(version.manifest, null, 2),
  ].join('\n');
}

/** `botfleet bots version <botId> <version>`: one version's steps, scripts and manifest (secrets masked). */
export async function botVersionCommand({ client, output, args }: CommandContext): Promise<void> {
  const { botId, version } = botIdAndVersion(args, 'bots version');
  const { data } = await getBotVersion({ client, path: { botId, version }, throwOnError: true });
  print(output, data, describeVersion);
}

/** `botfleet bots restore <botId> <version>`: makes that version current again, as a new version. */
export async function restoreBotVersionCommand({ client, output, args }: CommandContext): Promise<void> {
  const { botId, version } = botIdAndVersion(args, 'bots restore');
  const { data, response } = await restoreBotVersion({ client, path: { botId, version }, throwOnError: true });
  // 201: a new version; 200: the current definition already was that version's, nothing changed.
  print(output, data, (current) =>
    response.status === 201
      ? `Restored version ${version} of ${botId} as version ${current.version}.`
      : `Nothing to restore: the current version (${current.version}) already has version ${version}'s definition.`,
  );
}
