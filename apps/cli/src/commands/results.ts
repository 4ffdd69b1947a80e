import { streamBotResults } from '@botfleet/sdk';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { UsageError } from '../usage-error';

const FORMATS = ['json', 'jsonl', 'csv'] as const;
type Format = (typeof FORMATS)[number];

const isFormat = (value: string): value is Format => (FORMATS as readonly string[]).includes(value);

/** How a copy ends when whoever reads the output has closed it: how `| head` says "enough". */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/**
 * Copies the body to `out` as it arrives, with Node's own backpressure (a full `out` pauses the
 * download), so an export of any size never sits in memory. A reader that stops early (`| head`)
 * ends the copy quietly, and the pipeline's teardown cancels the download, which stops the export
 * on the server. `out` is left open: it is the process's standard output.
 */
async function copyTo(body: ReadableStream<Uint8Array>, out: NodeJS.WritableStream): Promise<void> {
  try {
    // The DOM's and Node's ReadableStream types differ in name only: fetch's body is Node's.
    await pipeline(Readable.fromWeb(body as NodeReadableStream<Uint8Array>), out, { end: false });
  } catch (error) {
    if (!READER_GONE.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/**
 * `botfleet bots results <botId> [--format json|jsonl|csv] [--from T] [--to T] [--fields a,b]
 * [--items-path p]`: the bot's completed runs' data, oldest first, streamed to standard output
 * (`> out.csv`). T is ISO 8601 with a zone, a date, or Unix ms.
 */
export async function botResultsCommand({ client, args, stdout }: CommandContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      fields: { type: 'string' },
      'items-path': { type: 'string' },
    },
  });
  const [botId, ...extra] = positionals;
  if (!botId || extra.length > 0) throw new UsageError('bots results takes one bot id');
  const format = values.format ?? 'json';
  if (!isFormat(format)) throw new UsageError('--format is json, jsonl or csv');
  const body = await streamBotResults(client, botId, {
    format,
    ...(values.from !== undefined ? { from: values.from } : {}),
    ...(values.to !== undefined ? { to: values.to } : {}),
    ...(values.fields !== undefined ? { fields: values.fields.split(',') } : {}),
    ...(values['items-path'] !== undefined ? { itemsPath: values['items-path'] } : {}),
  });
  await copyTo(body, stdout);
}
