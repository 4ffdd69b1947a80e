import type { Client } from './generated/client';
import { exportBotResults, getExtract } from './generated/sdk.gen';
import type { ExportBotResultsData, GetExtractData } from './generated/types.gen';

/*
 * Results exports as byte streams. The generated calls parse the answer (a JSON array, or text),
 * which holds a whole export in memory; these hand the response body over as it arrives, so an
 * export of any size can be piped to a file. Errors still throw BotfleetApiError before any byte.
 */

/** The export's query, with `fields` as a list (joined with commas on the wire). */
export type BotResultsQuery = Omit<NonNullable<ExportBotResultsData['query']>, 'fields'> & { fields?: string[] };

/** One execution's extract as records; `json` keeps the `{ data }` answer of getExtract. */
export type ExtractRecordsQuery = Omit<NonNullable<GetExtractData['query']>, 'fields' | 'format'> & {
  format: 'csv' | 'jsonl';
  fields?: string[];
};

function withFields<Q extends { fields?: string[] }>(query: Q): Omit<Q, 'fields'> & { fields?: string } {
  const { fields, ...rest } = query;
  return fields ? { ...rest, fields: fields.join(',') } : rest;
}

function bodyOf(data: unknown): ReadableStream<Uint8Array> {
  // parseAs 'stream' answers the response body; only a body-less answer could make it null.
  if (!(data instanceof ReadableStream)) throw new Error('The API answered without a body');
  return data as ReadableStream<Uint8Array>;
}

/**
 * The bot's completed runs' data, oldest first, as JSON, JSON Lines or CSV bytes (GET
 * /bots/{botId}/results). Read it to the end, or cancel it to stop the export on the server.
 */
export async function streamBotResults(
  client: Client,
  botId: string,
  query: BotResultsQuery = {},
): Promise<ReadableStream<Uint8Array>> {
  const { data } = await exportBotResults({
    client,
    path: { botId },
    query: withFields(query),
    parseAs: 'stream',
    throwOnError: true,
  });
  return bodyOf(data);
}

/** One execution's extracted data as CSV or JSON Lines records (GET /executions/{id}/extract?format=). */
export async function streamExtractRecords(
  client: Client,
  executionId: string,
  query: ExtractRecordsQuery,
): Promise<ReadableStream<Uint8Array>> {
  const { data } = await getExtract({
    client,
    path: { executionId },
    query: withFields(query),
    parseAs: 'stream',
    throwOnError: true,
  });
  return bodyOf(data);
}
