import type { Logger } from '@botfleet/core';
import { pageCompletedExtracts, type CompletedExtract, type Db, type ExtractCursor } from '@botfleet/db';
import { stringify } from 'csv-stringify';
import type { Response } from 'express';
import { Readable, Transform, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { EXPORT_CONTENT_TYPES, type CsvFormulaHandling, type ExportFormat } from '../contracts/results-export.contract';
import {
  createColumnCollector,
  csvCell,
  csvRowOf,
  projectRecord,
  recordsOfRun,
  type ExportRecord,
  type RecordShape,
} from './export-records';

/*
 * Streams a results export (docs/results-export.md) in constant memory: runs are read in keyset
 * pages, turned into records one at a time, encoded and written through one pipeline, so a slow
 * client slows the reading (backpressure) and a client that leaves stops it. Everything that can
 * still answer an error envelope (a CSV without `fields` needing too many columns, the database
 * being down) happens before the first byte; after it an error can only cut the response short.
 */

/** Runs per page: one statement each, small enough to keep a page's rows cheap in memory. */
export const EXPORT_PAGE_ROWS = 500;
/** Stored bytes per page (see pageCompletedExtracts): large documents make shorter pages. */
export const EXPORT_PAGE_BYTES = 4 * 1024 * 1024;
/** How a pipeline ends when the client closed the connection mid-download. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);
/** Output is written in chunks of about this size, not one small write per record. */
const WRITE_CHUNK_BYTES = 64 * 1024;

/** Where an export's runs come from: a fresh pass, oldest first, each time it is called. */
export type RunPages = () => AsyncIterable<CompletedExtract[]>;

/** The bot's completed runs with data, in keyset pages, within [from, to). */
export function botRunPages(db: Db, botId: string, range: { from?: Date; to?: Date }): RunPages {
  return async function* pages() {
    let after: ExtractCursor | undefined;
    for (;;) {
      const page = await pageCompletedExtracts(db, botId, {
        ...range,
        ...(after ? { after } : {}),
        limit: EXPORT_PAGE_ROWS,
        maxBytes: EXPORT_PAGE_BYTES,
      });
      if (page.length === 0) return;
      yield page;
      const last = page[page.length - 1]!;
      after = { completedAt: last.completedAt, id: last.id };
    }
  };
}

/** One run already in memory (an execution's extract), as a source of pages. */
export function singleRunPages(run: CompletedExtract): RunPages {
  return async function* pages() {
    yield [run];
  };
}

export interface ExportRequest {
  format: ExportFormat;
  shape: RecordShape;
  /** What a CSV does with cells that would run as spreadsheet formulas. */
  csvFormulas: CsvFormulaHandling;
  runs: RunPages;
  /** The download's name without extension, e.g. `bot_...-results`. */
  filename: string;
  logger: Logger;
  /** Logged with the outcome. */
  context: Record<string, unknown>;
}

/** Every record of the runs, in order, as the shape cuts them. */
async function* recordsOf(pages: AsyncIterable<CompletedExtract[]>, shape: RecordShape): AsyncGenerator<ExportRecord> {
  for await (const page of pages) {
    for (const run of page) {
      for (const record of recordsOfRun(run, shape.itemsPath))
        yield shape.fields ? projectRecord(record, shape.fields) : record;
    }
  }
}

/** The CSV columns when nobody named them: a first pass over the runs, reading keys only. */
async function discoverColumns(runs: RunPages, shape: RecordShape): Promise<string[]> {
  const collector = createColumnCollector();
  for await (const record of recordsOf(runs(), shape)) collector.add(record);
  return collector.columns();
}

/**
 * The pages of a pass whose first page is already read: reading it before the headers go out lets
 * a database outage still answer 503 with the envelope instead of an empty 200.
 */
async function startedPass(runs: RunPages): Promise<AsyncIterable<CompletedExtract[]>> {
  const iterator = runs()[Symbol.asyncIterator]();
  const first = await iterator.next();
  return {
    async *[Symbol.asyncIterator]() {
      try {
        if (first.done) return;
        yield first.value;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
      } finally {
        // A client that left ends the pass: no further page is read.
        await iterator.return?.();
      }
    },
  };
}

async function* jsonArray(records: AsyncIterable<ExportRecord>): AsyncGenerator<string> {
  yield '[';
  let separator = '';
  for await (const record of records) {
    yield separator + JSON.stringify(record);
    separator = ',';
  }
  yield ']\n';
}

async function* jsonLines(records: AsyncIterable<ExportRecord>): AsyncGenerator<string> {
  for await (const record of records) yield `${JSON.stringify(record)}\n`;
}

async function* csvRows(
  records: AsyncIterable<ExportRecord>,
  columns: readonly string[],
  projected: boolean,
  formulas: CsvFormulaHandling,
): AsyncGenerator<string[]> {
  for await (const record of records) yield csvRowOf(record, columns, projected, formulas);
}

/**
 * RFC 4180: a header row, CRLF after every record, and a field quoted when it holds a comma, a
 * quote, CR or LF, its quotes doubled. csv-stringify only quotes a bare CR or LF when told to once
 * the record delimiter is CRLF (quote_record_delimiter), so it is told.
 */
const csvEncoder = (columns: readonly string[], formulas: CsvFormulaHandling): Duplex =>
  stringify({
    header: true,
    columns: columns.map((column) => ({ key: column, header: csvCell(column, formulas) })),
    record_delimiter: '\r\n',
    quote_record_delimiter: true,
    eof: true,
  });

/** Gathers small writes into chunks of about `bytes`, so a record is not a write (and a chunk) of its own. */
function coalesce(bytes: number): Transform {
  let pending: Buffer[] = [];
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending.push(chunk);
      size += chunk.length;
      if (size >= bytes) {
        this.push(Buffer.concat(pending, size));
        pending = [];
        size = 0;
      }
      done();
    },
    flush(done) {
      if (size > 0) this.push(Buffer.concat(pending, size));
      done();
    },
  });
}

/** The format's `Content-Disposition`: a download with a file name any client can save. */
function attachment(filename: string, format: ExportFormat): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}.${format}"`;
}

/**
 * Answers the export on `res`: columns (CSV without `fields`) and the first page are read before
 * the status line, then the rest streams with backpressure. Resolves when the response ended,
 * the client left, or a failure cut it short (logged).
 */
export async function sendExport(res: Response, request: ExportRequest): Promise<void> {
  const { format, shape, runs, csvFormulas } = request;
  const columns = format === 'csv' ? (shape.fields ?? (await discoverColumns(runs, shape))) : [];
  const records = recordsOf(await startedPass(runs), shape);
  const stages: (Readable | Duplex)[] =
    format === 'csv'
      ? [
          Readable.from(csvRows(records, columns, shape.fields !== undefined, csvFormulas)),
          csvEncoder(columns, csvFormulas),
        ]
      : [Readable.from(format === 'json' ? jsonArray(records) : jsonLines(records))];

  res.status(200);
  res.setHeader('Content-Type', EXPORT_CONTENT_TYPES[format]);
  res.setHeader('Content-Disposition', attachment(request.filename, format));
  res.setHeader('Cache-Control', 'private, no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const started = performance.now();
  try {
    await pipeline([...stages, coalesce(WRITE_CHUNK_BYTES), res]);
  } catch (error) {
    // The client leaving is how a download ends early, not a failure of ours.
    const clientLeft = !res.writableFinished && CLIENT_GONE.has((error as { code?: string }).code ?? '');
    request.logger[clientLeft ? 'debug' : 'warn'](
      { ...request.context, format, err: error instanceof Error ? error.message : String(error) },
      clientLeft ? 'results export stopped: the client left' : 'results export ended early',
    );
    return;
  }
  request.logger.debug(
    { ...request.context, format, ms: Math.round(performance.now() - started) },
    'results export sent',
  );
}
