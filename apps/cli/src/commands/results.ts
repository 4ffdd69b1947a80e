import { streamBotResults } from '@botfleet/sdk';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { CommandContext } from '../context';
import { UsageError } from '../usage-error';

const FORMATS = ['json', 'jsonl', 'csv'] as const;
type Format = (typeof FORMATS)[number];

const isFormat = (value: string): value is Format => (FORMATS as readonly string[]).includes(value);

/**
 * Copies the body to `out` as it arrives, waiting whenever `out` is full, so an export of any size
 * never sits in memory. A reader that stops early (`| head`) ends the copy quietly and cancels the
 * download, which stops the export on the server.
 */
async function copyTo(body: ReadableStream<Uint8Array>, out: NodeJS.WritableStream): Promise<void> {
  const reader = body.getReader();
  let failure: NodeJS.ErrnoException | undefined;
  const onError = (error: NodeJS.ErrnoException) => {
    failure = error;
  };
  out.on('error', onError);
  try {
    while (failure === undefined) {
      const { done, value } = await reader.read();
      if (done) return;
      // An error while waiting (EPIPE) rejects the wait; onError has kept it for the loop to judge.
      if (!out.write(value)) await Promise.race([once(out, 'drain'), once(out, 'close')]).catch(() => undefined);
    }
    // EPIPE: whoever read the output closed it, which is how `| head` says "enough".
    if (failure.code !== 'EPIPE') throw failure;
  } finally {
    out.off('error', onError);
    if (failure !== undefined) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
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
