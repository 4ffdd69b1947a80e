import { cellText, flattenRecord, isPlainObject } from '@botfleet/core/browser';

/*
 * Extracted data read as a table: which data is a list of records, where the list is, and the
 * columns and cells of its rows. A record is flattened and its cells written by the same code as
 * the API's CSV export (flat-record.ts in @botfleet/core: nested objects by key, arrays by index,
 * joined with dots; an empty object or array adds no column), so a column of the table is a column
 * of the CSV download (which adds `executionId` and `completedAt` first); console-data.test.ts
 * checks the table's columns against the header of the API's CSV of the same data.
 */

/** The value of itemsPath that names the data itself as the list (docs/results-export.md). */
export const LIST_AT_ROOT = '.';

/** A list of records found in a run's data. */
export interface RecordList {
  /** Where the list is, as the export's `itemsPath` takes it: `.` for the data itself, else a key. */
  itemsPath: string;
  records: Record<string, unknown>[];
}

/** A non-empty array whose every item is an object: a list a table shows one row per item. */
const isListOfRecords = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length > 0 && value.every(isPlainObject);

/**
 * The list of records in the data, or null when there is none to show as a table. Two shapes
 * count: the data itself an array of objects (what a `multiple` extract gives), or an object with
 * exactly one field holding an array of objects (`{ "products": [...], "total": 3 }`, what a
 * script returning a page of items gives). With two or more such fields no one of them is the
 * obvious list, so the data stays a tree only; guessing would show a table of half the data.
 * Only top-level fields are looked at: the export's `itemsPath` can name deeper lists, but
 * the console offers the table for the common shapes, and the tree shows the rest.
 */
export function recordListOf(data: unknown): RecordList | null {
  if (isListOfRecords(data)) return { itemsPath: LIST_AT_ROOT, records: data };
  if (!isPlainObject(data)) return null;
  const lists = Object.entries(data).filter(([, value]) => isListOfRecords(value));
  if (lists.length !== 1) return null;
  const [key, records] = lists[0] as [string, Record<string, unknown>[]];
  // A key with a dot would read as a nested path in `itemsPath`: the download could not name it.
  if (key.includes('.')) return null;
  return { itemsPath: key, records };
}

/** The table of the records: the union of their flattened names in the order first seen, and each row's cells. */
export function tableOf(records: readonly Record<string, unknown>[]): { columns: string[]; rows: string[][] } {
  const flats = records.map(flattenRecord);
  const columns = new Set<string>();
  for (const flat of flats) for (const name of flat.keys()) columns.add(name);
  const names = [...columns];
  return { columns: names, rows: flats.map((flat) => names.map((name) => cellText(flat.get(name)))) };
}
