import { canonicalJson, stableDataHash } from './stable-hash';

describe('stableDataHash', () => {
  it('ignores key order at every depth', () => {
    const a = { price: '9.99', item: { name: 'Widget', tags: ['a', 'b'] } };
    const b = { item: { tags: ['a', 'b'], name: 'Widget' }, price: '9.99' };
    expect(stableDataHash(a)).toBe(stableDataHash(b));
    expect(canonicalJson(b)).toBe('{"item":{"name":"Widget","tags":["a","b"]},"price":"9.99"}');
  });

  it('ignores whitespace around and inside extracted text', () => {
    expect(stableDataHash({ title: '  Big\n\t sale ' })).toBe(stableDataHash({ title: 'Big sale' }));
  });

  it('tells real changes apart: values, array order, types and missing keys', () => {
    const base = stableDataHash({ items: ['a', 'b'], n: 1 });
    expect(stableDataHash({ items: ['b', 'a'], n: 1 })).not.toBe(base);
    expect(stableDataHash({ items: ['a', 'b'], n: '1' })).not.toBe(base);
    expect(stableDataHash({ items: ['a', 'b'] })).not.toBe(base);
    expect(stableDataHash({ items: ['a', 'bb'], n: 1 })).not.toBe(base);
  });

  it('treats undefined members as absent, as JSON does', () => {
    expect(stableDataHash({ a: 1, b: undefined })).toBe(stableDataHash({ a: 1 }));
    expect(stableDataHash(null)).toBe(stableDataHash(undefined));
  });
});
