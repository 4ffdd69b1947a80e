import { DATA_PATH_PATTERN } from '@botfleet/core';
import { z } from 'zod';

/*
 * The query of a results export (GET /bots/:botId/results) and of one execution's extract in
 * another format (GET /executions/:executionId/extract?format=csv): docs/results-export.md.
 */

export const EXPORT_FORMATS = ['json', 'jsonl', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** `itemsPath=.`: the data itself is the array of items. */
export const ITEMS_AT_ROOT = '.';

/**
 * What a CSV does with cells a spreadsheet would run as a formula (`=HYPERLINK(...)`, `+cmd|...`,
 * `@SUM(...)`): `neutralise` (the default) prefixes them with `'`, `keep` leaves them raw.
 */
export const CSV_FORMULA_HANDLING = ['neutralise', 'keep'] as const;
export type CsvFormulaHandling = (typeof CSV_FORMULA_HANDLING)[number];

/** What each format is sent as. */
export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
  // RFC 4180 section 3: the optional `header` parameter says the first line names the columns.
  csv: 'text/csv; charset=utf-8; header=present',
};

/** The media types an export answers besides JSON, as the OpenAPI document lists them. */
export const EXPORT_MEDIA_TYPES = ['application/x-ndjson', 'text/csv'] as const;

/** Most names in `fields`; a CSV's columns beyond a few hundred are rarely what anyone reads. */
export const MAX_EXPORT_FIELDS = 500;
const MAX_FIELD_LENGTH = 200;

const FieldsSchema = z
  .string()
  .max(MAX_EXPORT_FIELDS * (MAX_FIELD_LENGTH + 1))
  .transform((value, ctx) => {
    const fields = value.split(',').map((name) => name.trim());
    const problems: string[] = [];
    if (fields.length > MAX_EXPORT_FIELDS) problems.push(`names at most ${MAX_EXPORT_FIELDS} fields`);
    if (fields.some((name) => name === '')) problems.push('has an empty field name');
    const badName = fields.find(
      (name) => name !== '' && (name.length > MAX_FIELD_LENGTH || name.split('.').includes('')),
    );
    if (badName !== undefined) {
      problems.push(
        `has an invalid field name '${badName.slice(0, 40)}' (1-${MAX_FIELD_LENGTH} characters, no empty dotted segment)`,
      );
    }
    const duplicate = fields.find((name, i) => name !== '' && fields.indexOf(name) !== i);
    if (duplicate !== undefined) problems.push(`names '${duplicate.slice(0, 40)}' twice`);
    for (const message of problems) ctx.addIssue({ code: 'custom', message });
    return problems.length === 0 ? fields : z.NEVER;
  })
  .describe(
    `Comma-separated (dotted) field names, e.g. \`title,price,products.0.name\`: each record keeps only these, ` +
      `in this order, under these names (a CSV has exactly these columns). At most ${MAX_EXPORT_FIELDS}.`,
  );

const ItemsPathSchema = z
  .string()
  .max(200)
  .refine((path) => path === ITEMS_AT_ROOT || DATA_PATH_PATTERN.test(path), {
    message: 'must be a dotted path such as `products` or `result.items`, or `.` for the data itself',
  })
  .describe(
    'A dotted path to an array in each run’s data (`products`): one record per item instead of one per run. ' +
      '`.` when the data itself is the array. Runs without it (or with null there) contribute no record.',
  );

const CsvFormulasSchema = z
  .enum(CSV_FORMULA_HANDLING)
  .describe(
    "CSV only. `neutralise` (the default) prefixes with `'` every cell that starts with `=`, `+`, `-`, `@`, a tab " +
      'or a carriage return and is not a plain number, so a spreadsheet shows it rather than running it as a ' +
      'formula (CSV injection); `keep` leaves such cells as the data holds them.',
  );

/** `csvFormulas` says what a CSV does with its cells, so any other format refuses it. */
function refuseCsvFormulasUnlessCsv(
  query: { format: ExportFormat; csvFormulas?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (query.format !== 'csv' && query.csvFormulas !== undefined)
    ctx.addIssue({ code: 'custom', path: ['csvFormulas'], message: 'needs format csv' });
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A calendar day that exists (Date.parse would roll 2026-02-30 over into March). */
function isRealDay(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day);
}

/**
 * A point in time: ISO 8601 with a zone (`2026-11-25T05:00:00Z`, `...+01:00`), a date (its
 * midnight UTC) or Unix ms, as every other timestamp of the API.
 */
const ExportTimeSchema = z.string().transform((value, ctx) => {
  let ms = Number.NaN;
  if (/^\d{1,16}$/.test(value)) ms = Number(value);
  else {
    const parts = DATE_ONLY.exec(value) ?? DATE_TIME.exec(value);
    if (parts && isRealDay(parts[1]!, parts[2]!, parts[3]!))
      ms = Date.parse(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  }
  if (Number.isFinite(ms) && ms <= 8.64e15) return new Date(ms);
  ctx.addIssue({
    code: 'custom',
    message: 'must be ISO 8601 with a time zone (2026-11-25T05:00:00Z), a date (2026-11-25) or Unix ms',
  });
  return z.NEVER;
});

const TIME_FORMATS = 'ISO 8601 with a time zone, a date (midnight UTC) or Unix ms';

export const BotResultsQuerySchema = z
  .strictObject({
    format: z.enum(EXPORT_FORMATS).default('json').describe('json (one array), jsonl (one record per line) or csv'),
    from: ExportTimeSchema.optional().describe(`Runs completed at or after this time (inclusive); ${TIME_FORMATS}`),
    to: ExportTimeSchema.optional().describe(`Runs completed before this time (exclusive); ${TIME_FORMATS}`),
    fields: FieldsSchema.optional(),
    itemsPath: ItemsPathSchema.optional(),
    csvFormulas: CsvFormulasSchema.optional(),
  })
  .superRefine((query, ctx) => {
    refuseCsvFormulasUnlessCsv(query, ctx);
    if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
    }
  });
export type BotResultsQuery = z.output<typeof BotResultsQuerySchema>;

export const ExtractQuerySchema = z
  .strictObject({
    format: z
      .enum(EXPORT_FORMATS)
      .default('json')
      .describe('json (default: `{ "data": ... }` as stored), or the data as records: jsonl or csv'),
    fields: FieldsSchema.optional(),
    itemsPath: ItemsPathSchema.optional(),
    csvFormulas: CsvFormulasSchema.optional(),
  })
  .superRefine((query, ctx) => {
    refuseCsvFormulasUnlessCsv(query, ctx);
    // JSON keeps its `{ data }` answer, which has no records to narrow.
    if (query.format !== 'json') return;
    for (const key of ['fields', 'itemsPath'] as const) {
      if (query[key] !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'needs format jsonl or csv' });
    }
  });
export type ExtractQuery = z.output<typeof ExtractQuerySchema>;

/** One exported record: the run's data object (or item) with `executionId` and `completedAt` added. */
export const ResultRecordSchema = z.record(z.string(), z.unknown()).meta({
  id: 'ResultRecord',
  description:
    'The run’s data object, or one item at `itemsPath`, with `executionId` and `completedAt` (Unix ms) first; ' +
    'data that is not an object is under `value`. With `fields`: exactly those keys, null where absent.',
  examples: [{ executionId: 'exe_7Hq2Lw9vB3cN', completedAt: 1767225603150, title: 'Boots', price: 49.9 }],
});

export const ResultRecordsSchema = z.array(ResultRecordSchema);
