import { recordListOf, tableOf } from './records';

/*
 * Which extracted data the console shows as a table, and the table's columns and cells, named and
 * written as the API's CSV export names and writes them (docs/results-export.md; how one record is
 * flattened and its cells written is tested with that code, in core's flat-record.test.ts).
 */

describe('recordListOf', () => {
  it('takes an array of objects as the list itself', () => {
    expect(recordListOf([{ a: 1 }, { a: 2 }])).toEqual({ itemsPath: '.', records: [{ a: 1 }, { a: 2 }] });
  });

  it('takes the one field of an object that holds an array of objects', () => {
    const data = { total: 2, products: [{ name: 'Boots' }], tags: ['a', 'b'] };
    expect(recordListOf(data)).toEqual({ itemsPath: 'products', records: [{ name: 'Boots' }] });
  });

  it('finds no list when none is obvious', () => {
    expect(recordListOf({ a: [{ x: 1 }], b: [{ y: 1 }] })).toBeNull();
    expect(recordListOf({ 'a.b': [{ x: 1 }] })).toBeNull();
    expect(recordListOf([])).toBeNull();
    expect(recordListOf([{ a: 1 }, 'text'])).toBeNull();
    expect(recordListOf(['a', 'b'])).toBeNull();
    expect(recordListOf('text')).toBeNull();
    expect(recordListOf(null)).toBeNull();
    expect(recordListOf({ headline: 'Hello' })).toBeNull();
  });
});

describe('tableOf', () => {
  it('has the union of the records’ flattened names as columns, in the order first seen, a cell a record lacks empty', () => {
    const table = tableOf([
      { name: 'Boots', seller: { name: 'Shop 4' }, empty: {}, none: [] },
      { name: 'Hat', variants: [{ sku: 'H-1' }], price: 12 },
    ]);
    expect(table.columns).toEqual(['name', 'seller.name', 'variants.0.sku', 'price']);
    expect(table.rows).toEqual([
      ['Boots', 'Shop 4', '', ''],
      ['Hat', '', 'H-1', '12'],
    ]);
  });
});
