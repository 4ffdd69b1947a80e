import { exportBotResults, getExtract, type Client } from '@botfleet/sdk';

/*
 * Downloads of extracted data through the export endpoints (docs/results-export.md). The console
 * sends its key in the Authorization header, which a plain <a href> cannot carry, so the file is
 * fetched with the key, held as a Blob and handed to the browser through an object URL. That
 * keeps the whole file in memory: fine for what a person downloads from the console; the CLI
 * (`botfleet bots results`) streams exports of any size to a file.
 */

export type DownloadFormat = 'csv' | 'jsonl' | 'json';

export const DOWNLOAD_FORMATS: readonly { format: DownloadFormat; label: string }[] = [
  { format: 'csv', label: 'CSV' },
  { format: 'jsonl', label: 'JSONL' },
  { format: 'json', label: 'JSON' },
];

/** Whose data: one run's extract, or every completed run of a bot. */
export type DataSource = { executionId: string } | { botId: string };

/**
 * The export's bytes: with `itemsPath`, one record per item of that list, else one per run. Read
 * as a Blob by the browser itself (parseAs 'blob'): piping the SDK's byte streams
 * (streamBotResults) into a Blob gives the same bytes, but Chromium then reports the finished
 * request as aborted.
 */
async function exportBlob(
  client: Client,
  source: DataSource,
  format: DownloadFormat,
  itemsPath: string | undefined,
): Promise<Blob> {
  const items = itemsPath === undefined ? {} : { itemsPath };
  const { data } =
    'botId' in source
      ? await exportBotResults({
          client,
          path: { botId: source.botId },
          query: { format, ...items },
          parseAs: 'blob',
          throwOnError: true,
        })
      : await getExtract({
          client,
          path: { executionId: source.executionId },
          // A run's JSON is the extract as stored (`{ "data": ... }`); records are for CSV and JSON Lines.
          query: format === 'json' ? {} : { format, ...items },
          parseAs: 'blob',
          throwOnError: true,
        });
  // parseAs 'blob' answers the body's bytes; the generated types still name the parsed answer.
  if (!((data as unknown) instanceof Blob)) throw new Error('The API answered without a body');
  return data as unknown as Blob;
}

/** The file name the API's Content-Disposition gives a bot's export, and its like for a run. */
function fileNameOf(source: DataSource, format: DownloadFormat): string {
  return 'botId' in source ? `${source.botId}-results.${format}` : `${source.executionId}-data.${format}`;
}

/** How long an object URL outlives its click: the browser reads the Blob after the click returns (FileSaver keeps 40 s). */
const REVOKE_AFTER_MS = 40_000;

/** Fetches the export and saves it as a file; throws the API's error before anything is saved. */
export async function downloadData(
  client: Client,
  source: DataSource,
  format: DownloadFormat,
  itemsPath: string | undefined,
): Promise<void> {
  const blob = await exportBlob(client, source, format, itemsPath);
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileNameOf(source, format);
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
