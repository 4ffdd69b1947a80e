import {
  createBot,
  getManifest,
  listBots,
  listSteps,
  replaceSteps,
  updateManifest,
  type Bot,
  type BotSummary,
  type ListBotsData,
  type Recording,
  type Step,
  type UpdateManifestData,
} from '@botfleet/sdk';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { print, table, timestamp } from '../output';
import { UsageError } from '../usage-error';

function describeBot(bot: Bot): string {
  return table([
    ['id', bot.id],
    ['name', bot.name],
    ['targetUrl', bot.targetUrl],
    ['kind', bot.kind],
    ['status', bot.status],
    ['tags', bot.tags.join(', ') || '-'],
    ['createdAt', timestamp(bot.createdAt)],
  ]);
}

type BotSort = NonNullable<NonNullable<ListBotsData['query']>['sort']>;
type BotStatus = BotSummary['status'];
/** Every sort the API document names, checked against it by the compiler. */
const BOT_SORTS = Object.keys({
  '-createdAt': true,
  createdAt: true,
  name: true,
  '-lastRunAt': true,
} satisfies Record<BotSort, true>);
const isBotSort = (value: string): value is BotSort => BOT_SORTS.includes(value);
const isBotStatus = (value: string): value is BotStatus => value === 'active' || value === 'paused';

/** The newest run as the list shows it: when and how it went; when it was deleted since, only when. */
function lastRunOf(bot: BotSummary): string {
  if (bot.lastExecution) return `${timestamp(bot.lastExecution.createdAt)} ${bot.lastExecution.status}`;
  return bot.lastRunAt === null ? 'never' : timestamp(bot.lastRunAt);
}

/** Quotes a value for the "More:" line when a shell would split or expand it. */
const shellWord = (value: string) => (/^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`);

/**
 * `botfleet bots list [--q|--search text] [--tag t]... [--status s] [--sort s] [--limit n] [--cursor c]`:
 * one page, newest first unless sorted otherwise, with each bot's last run.
 */
export async function listBotsCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      limit: { type: 'string' },
      cursor: { type: 'string' },
      q: { type: 'string' },
      search: { type: 'string' },
      tag: { type: 'string', multiple: true },
      status: { type: 'string' },
      sort: { type: 'string' },
    },
  });
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 100)) {
    throw new UsageError('--limit must be a whole number from 1 to 100');
  }
  if (values.q !== undefined && values.search !== undefined) throw new UsageError('give --q or --search, not both');
  const q = values.q ?? values.search;
  const { status, sort } = values;
  if (status !== undefined && !isBotStatus(status)) throw new UsageError('--status is active or paused');
  if (sort !== undefined && !isBotSort(sort)) throw new UsageError(`--sort is one of ${BOT_SORTS.join(', ')}`);
  const filters = { q, tag: values.tag, status, sort };
  const { data } = await listBots({ client, query: { limit, cursor: values.cursor, ...filters }, throwOnError: true });
  print(output, data, (page) => {
    if (page.data.length === 0) return 'No bots.';
    const rows = page.data.map((bot: BotSummary) => [
      bot.id,
      bot.status,
      bot.kind,
      bot.name,
      lastRunOf(bot),
      bot.targetUrl,
    ]);
    // The next page needs the same filters and sort: the cursor continues this listing only.
    // `--name=value` so a value starting with a dash (--sort=-lastRunAt) stays a value.
    const next = (cursor: string) =>
      [
        ...(q !== undefined ? [`--q=${q}`] : []),
        ...(values.tag ?? []).map((tag) => `--tag=${tag}`),
        ...(status ? [`--status=${status}`] : []),
        ...(sort ? [`--sort=${sort}`] : []),
        ...(limit !== undefined ? [`--limit=${limit}`] : []),
        `--cursor=${cursor}`,
      ]
        .map(shellWord)
        .join(' ');
    const more = page.nextCursor ? `\nMore: botfleet bots list ${next(page.nextCursor)}` : '';
    return table([['ID', 'STATUS', 'KIND', 'NAME', 'LAST RUN', 'TARGET URL'], ...rows]) + more;
  });
}

/** `botfleet bots create --name N --target URL [--kind k] [--description d] [--tag t]...` */
export async function createBotCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      target: { type: 'string' },
      kind: { type: 'string' },
      description: { type: 'string' },
      tag: { type: 'string', multiple: true },
    },
  });
  if (!values.name || !values.target) throw new UsageError('bots create needs --name and --target <url>');
  if (values.kind !== undefined && values.kind !== 'extraction' && values.kind !== 'action') {
    throw new UsageError('--kind is extraction or action');
  }
  const { data } = await createBot({
    client,
    body: {
      name: values.name,
      targetUrl: values.target,
      ...(values.kind ? { kind: values.kind } : {}),
      ...(values.description ? { description: values.description } : {}),
      ...(values.tag ? { tags: values.tag } : {}),
    },
    throwOnError: true,
  });
  print(output, data, describeBot);
}

/**
 * `botfleet bots import <recording.json> [--name N] [--target URL]`: a bot from a Chrome DevTools
 * Recorder recording, its steps included. Steps the recording has that botfleet cannot run are
 * reported as warnings.
 */
export async function importBotCommand({ client, output, args }: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { name: { type: 'string' }, target: { type: 'string' } },
  });
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError('bots import takes one recording file (JSON)');
  let recording: Recording;
  try {
    recording = JSON.parse(readFileSync(file, 'utf8')) as Recording;
  } catch (err) {
    throw new UsageError(`Cannot read ${file} as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const { data } = await createBot({
    client,
    body: {
      recording,
      ...(values.name ? { name: values.name } : {}),
      ...(values.target ? { targetUrl: values.target } : {}),
    },
    throwOnError: true,
  });
  print(output, data, (bot) => {
    const warnings = (bot.warnings ?? []).map((w) => `warning: ${w.message}`);
    return [describeBot(bot), ...warnings].join('\n');
  });
}

/** A JSON file given on the command line, parsed; a file that is not JSON is a usage error. */
function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (err) {
    throw new UsageError(`Cannot read ${file} as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function botIdAndFile(args: string[], command: string): { botId: string; file: string | undefined } {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { file: { type: 'string' } } });
  const [botId, ...extra] = positionals;
  if (!botId || extra.length > 0) throw new UsageError(`${command} takes one bot id`);
  return { botId, file: values.file };
}

/**
 * `botfleet bots steps <botId> [--file steps.json]`: the bot's recorded steps; with --file, replaces
 * them first with the file's (`[ step, ... ]` or `{ "steps": [ ... ] }`).
 */
export async function botStepsCommand({ client, output, args }: CommandContext): Promise<void> {
  const { botId, file } = botIdAndFile(args, 'bots steps');
  let steps: Step[];
  if (file === undefined) {
    const { data } = await listSteps({ client, path: { botId }, throwOnError: true });
    // Without `format=recorder` the API answers the steps, never a recording.
    steps = 'data' in data && Array.isArray(data.data) ? data.data : [];
  } else {
    const json = readJsonFile(file);
    const given = (Array.isArray(json) ? json : (json as { steps?: unknown }).steps) as Step[] | undefined;
    if (!Array.isArray(given)) throw new UsageError(`${file} must hold an array of steps, or { "steps": [...] }`);
    ({
      data: { data: steps },
    } = await replaceSteps({ client, path: { botId }, body: { steps: given }, throwOnError: true }));
  }
  print(
    output,
    steps,
    (list) => list.map((step) => `${step.index ?? '-'}  ${JSON.stringify(step)}`).join('\n') || 'No steps.',
  );
}

/**
 * `botfleet bots manifest <botId> [--file manifest.json]`: the bot's manifest (secrets masked);
 * with --file, the sections the file has replace the stored ones first.
 */
export async function botManifestCommand({ client, output, args }: CommandContext): Promise<void> {
  const { botId, file } = botIdAndFile(args, 'bots manifest');
  const { data } =
    file === undefined
      ? await getManifest({ client, path: { botId }, throwOnError: true })
      : await updateManifest({
          client,
          path: { botId },
          body: readJsonFile(file) as UpdateManifestData['body'],
          throwOnError: true,
        });
  print(output, data, (manifest) => JSON.stringify(manifest, null, 2));
}
