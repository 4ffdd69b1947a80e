import { AppError, cellText, flattenInto, flattenRecord, isPlainObject, selectDataPath } from '@botfleet/core';
import type { CompletedExtract } from '@botfleet/db';
import { ITEMS_AT_ROOT, type CsvFormulaHandling } from '../contracts/results-export.contract';

/*
 * What one completed run becomes in a results export (docs/results-export.md): its records, each
 * the data object (or one item of the array at `itemsPath`) with `executionId` and `completedAt`
 * added at the top; the fields a `fields` list keeps; and the flat cells of a CSV row (named and
 * written by flat-record.ts in @botfleet/core, which the console's data table shares).
 */

/** One exported record: always a plain object, whatever the run's data was. */
export type ExportRecord = Record<string, unknown>;

/** The most CSV columns an export finds by itself; past it the caller must name them with `fields`. */
export const MAX_DISCOVERED_COLUMNS = 2_000;

/** How a run's data is cut into records: by item at `itemsPath`, else one per run. */
export interface RecordShape {
  itemsPath?: string | undefined;
  /** The (dotted) fields each record keeps, in this order; the whole record when omitted. */
  fields?: string[] | undefined;
}

/** The units a run contributes: its data, or each item at `itemsPath` (none when the path is absent or null). */
function unitsOf(data: unknown, itemsPath: string | undefined): unknown[] {
  if (itemsPath === undefined) return [data];
  const items = itemsPath === ITEMS_AT_ROOT ? data : selectDataPath(data, itemsPath);
  // A run without the list (the page had no products) has no items, as an empty list would.
  if (items === null || items === undefined) return [];
  return Array.isArray(items) ? items : [items];
}

/**
 * The records of one run, oldest first. An object keeps its keys after `executionId` and
 * `completedAt` (Unix ms), which always name the run even if the data had keys of those names;
 * anything else (a string, a number, an array) goes under `value`.
 */
export function recordsOfRun(run: CompletedExtract, itemsPath: string | undefined): ExportRecord[] {
  const executionId = run.id;
  const completedAt = run.completedAt.getTime();
  return unitsOf(run.extractedData, itemsPath).map((unit) => {
    if (!isPlainObject(unit)) return { executionId, completedAt, value: unit };
    // Spread, not Object.assign: a `__proto__` key of the data stays an own key, never a prototype.
    const record: ExportRecord = { executionId, completedAt, ...unit };
    record.executionId = executionId;
    record.completedAt = completedAt;
    return record;
  });
}

/**
 * The record narrowed to `fields` (each a dotted path, `products.0.name`), keyed by the names as given (`{"products.0.name": "Boots"}`) in
 * their order; a field the record lacks is null, so every record has the same keys.
 */
export function projectRecord(record: ExportRecord, fields: readonly string[]): ExportRecord {
  // fromEntries defines own keys, so a field named `__proto__` is data like any other.
  return Object.fromEntries(fields.map((field) => [field, selectDataPath(record, field)]));
}

/**
 * The CSV columns of records nobody named: the union of their flattened names, in the order first
 * seen. Refuses (400) past MAX_DISCOVERED_COLUMNS, before any byte is sent.
 */
export function createColumnCollector(maxColumns = MAX_DISCOVERED_COLUMNS) {
  // Every record has these, so even an export of no runs has them as its header.
  const columns = new Set<string>(['executionId', 'completedAt']);
  return {
    add(record: ExportRecord): void {
      flattenInto(record, '', (name) => {
        if (columns.has(name)) return;
        if (columns.size >= maxColumns) {
          throw new AppError(
            'validation_error',
            `The data has more than ${maxColumns} distinct columns; name the ones to export with \`fields\``,
            [{ path: 'fields', in: 'query', message: `is needed: more than ${maxColumns} columns` }],
          );
        }
        columns.add(name);
      });
    },
    columns: (): string[] => [...columns],
  };
}

/** The first characters with which Excel, LibreOffice and Google Sheets start a formula (OWASP's CSV injection list). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A number as a spreadsheet reads it (`-2.5`, `+1e3`): a value, not a formula, so it stays as it is. */
const PLAIN_NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The one encoder of a CSV cell, header names included (they are the data's keys): its text
 * (flat-record.ts), with a cell a spreadsheet would take for a formula prefixed with `'` unless
 * formulas are kept (docs/results-export.md).
 */
export function csvCell(value: unknown, formulas: CsvFormulaHandling): string {
  const text = cellText(value);
  if (formulas === 'keep' || !FORMULA_START.test(text) || PLAIN_NUMBER.test(text)) return text;
  return `'${text}`;
}

/**
 * A record's CSV row for these columns. A record projected on `fields` has exactly those keys (a
 * field may hold a whole object); discovered columns are the record's own flattened names.
 */
export function csvRowOf(
  record: ExportRecord,
  columns: readonly string[],
  projected: boolean,
  formulas: CsvFormulaHandling,
): string[] {
  if (projected) return columns.map((field) => csvCell(Object.hasOwn(record, field) ? record[field] : null, formulas));
  const flat = flattenRecord(record);
  return columns.map((column) => csvCell(flat.get(column), formulas));
}
