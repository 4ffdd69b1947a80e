import { cellText, flattenRecord } from './flat-record';

/*
 * How a record becomes flat cells, for the API's CSV export and the console's data table alike
 * (the export's own cases, projection and the column bound, are in export-records.test.ts).
 */

describe('flattenRecord', () => {
  it('names nested keys with dots and array items by index, in the order it walks them', () => {
    const flat = flattenRecord({ name: 'Boots', seller: { name: 'Shop 4' }, variants: [{ sku: 'B-1' }, 'loose'] });
    expect([...flat]).toEqual([
      ['name', 'Boots'],
      ['seller.name', 'Shop 4'],
      ['variants.0.sku', 'B-1'],
      ['variants.1', 'loose'],
    ]);
  });

  it('gives an empty object or array no name at all', () => {
    expect([...flattenRecord({ empty: {}, none: [], nested: { deeper: {} }, kept: null })]).toEqual([['kept', null]]);
  });

  it('keeps a `__proto__` key of the data as a name like any other', () => {
    const record = JSON.parse('{"__proto__": {"polluted": true}, "title": "x"}') as Record<string, unknown>;
    expect([...flattenRecord(record).keys()]).toEqual(['__proto__.polluted', 'title']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('cellText', () => {
  it('writes strings as they are, numbers and booleans as JSON, nothing as empty', () => {
    expect([cellText('a,"b"'), cellText(49.9), cellText(true), cellText(null), cellText(undefined)]).toEqual([
      'a,"b"',
      '49.9',
      'true',
      '',
      '',
    ]);
  });

  it('writes an object or array as its JSON', () => {
    expect(cellText([{ sku: 'B-1' }])).toBe('[{"sku":"B-1"}]');
  });
});
