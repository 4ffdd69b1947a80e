import { DATA_PATH_PATTERN, selectDataPath } from './data-path';

describe('selectDataPath', () => {
  const data = { items: [{ name: 'a' }, { name: 'b', tags: ['x', 'y'] }], meta: { count: 2, zero: 0, no: false } };

  it('returns the whole value without a path', () => {
    expect(selectDataPath(data, undefined)).toBe(data);
    expect(selectDataPath(data, null)).toBe(data);
    expect(selectDataPath(data, '')).toBe(data);
  });

  it('follows object keys and numeric array indexes', () => {
    expect(selectDataPath(data, 'items.0.name')).toBe('a');
    expect(selectDataPath(data, 'items.1.tags.1')).toBe('y');
    expect(selectDataPath(data, 'meta.count')).toBe(2);
    expect(selectDataPath([10, 20], '1')).toBe(20);
  });

  it('keeps falsy values that exist', () => {
    expect(selectDataPath(data, 'meta.zero')).toBe(0);
    expect(selectDataPath(data, 'meta.no')).toBe(false);
  });

  it('gives null when the path does not resolve', () => {
    expect(selectDataPath(data, 'items.9')).toBeNull();
    expect(selectDataPath(data, 'items.name')).toBeNull();
    expect(selectDataPath(data, 'meta.count.more')).toBeNull();
    expect(selectDataPath(data, 'nope')).toBeNull();
    expect(selectDataPath('text', 'length')).toBeNull();
    expect(selectDataPath(null, 'a')).toBeNull();
  });

  it('reads own properties only, never the prototype chain', () => {
    expect(selectDataPath(data, '__proto__')).toBeNull();
    expect(selectDataPath(data, 'constructor')).toBeNull();
    expect(selectDataPath(data, 'constructor.prototype')).toBeNull();
    expect(selectDataPath(data, 'meta.toString')).toBeNull();
    expect(selectDataPath(data, 'items.length')).toBeNull();
    // A JSON key named __proto__ is plain data once parsed, and is allowed.
    expect(selectDataPath(JSON.parse('{"__proto__":{"x":1}}'), '__proto__.x')).toBe(1);
  });
});

describe('DATA_PATH_PATTERN', () => {
  it('accepts dot notation and rejects anything else', () => {
    expect(DATA_PATH_PATTERN.test('items.0.name')).toBe(true);
    expect(DATA_PATH_PATTERN.test('a')).toBe(true);
    expect(DATA_PATH_PATTERN.test('a..b')).toBe(false);
    expect(DATA_PATH_PATTERN.test('.a')).toBe(false);
    expect(DATA_PATH_PATTERN.test('a[0]')).toBe(false);
  });
});
