import { cellText, recordListOf, tableOf } from './records';

/*
 * Which extracted data the console shows as a table, and the table's columns and cells, named and
 * written as the API's CSV export names and writes them (docs/results-export.md).
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
  it('flattens nested keys with dots and arrays by index, columns in the order first seen', () => {
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

  it('writes cells as the CSV does', () => {
    expect([cellText('a,"b"'), cellText(49.9), cellText(true), cellText(null), cellText(undefined)]).toEqual([
      'a,"b"',
      '49.9',
      'true',
      '',
      '',
    ]);
  });
});
