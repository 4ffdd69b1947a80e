import { createColumnCollector, csvCell, csvRowOf, projectRecord, recordsOfRun } from './export-records';

/*
 * Record shaping without a database: the cases the route tests do not reach, chiefly data from a
 * hostile page whose keys name Object.prototype's.
 */

const run = (extractedData: unknown) => ({ id: 'exe_1', completedAt: new Date(5), extractedData });

it('keeps a `__proto__` key of the data as data, never as a prototype', () => {
  const data = JSON.parse('{"__proto__": {"polluted": true}, "title": "x"}') as unknown;
  const [record] = recordsOfRun(run(data), undefined);
  expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
  expect(Object.hasOwn(record!, '__proto__')).toBe(true);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect(JSON.stringify(record)).toBe(
    '{"executionId":"exe_1","completedAt":5,"__proto__":{"polluted":true},"title":"x"}',
  );
  const projected = projectRecord(record!, ['__proto__.polluted', 'title']);
  expect(JSON.stringify(projected)).toBe('{"__proto__.polluted":true,"title":"x"}');
  const collector = createColumnCollector();
  collector.add(record!);
  expect(collector.columns()).toEqual(['executionId', 'completedAt', '__proto__.polluted', 'title']);
  expect(csvRowOf(record!, collector.columns(), false, 'neutralise')).toEqual(['exe_1', '5', 'true', 'x']);
});

it('names the run in executionId and completedAt even when the data has keys of those names', () => {
  const [record] = recordsOfRun(run({ completedAt: 'yesterday', executionId: 'mine', a: 1 }), undefined);
  expect(record).toEqual({ executionId: 'exe_1', completedAt: 5, a: 1 });
  expect(Object.keys(record!)).toEqual(['executionId', 'completedAt', 'a']);
});

it('refuses past the column bound, and counts each name once', () => {
  const collector = createColumnCollector(4);
  collector.add({ executionId: 'e', completedAt: 1, a: 1, b: [1] });
  collector.add({ executionId: 'e', completedAt: 1, a: 2, b: [2] });
  expect(collector.columns()).toEqual(['executionId', 'completedAt', 'a', 'b.0']);
  expect(() => collector.add({ c: true })).toThrow(/more than 4 distinct columns/);
});

it('prefixes a cell starting as a formula with a quote, unless it is a plain number or formulas are kept', () => {
  for (const formula of ['=1+1', '+cmd', '-x', '@SUM(A1)', '\tx', '\rx', '-', '+', '-1+2', '-2.5 '])
    expect(csvCell(formula, 'neutralise')).toBe(`'${formula}`);
  for (const value of ['-2.5', '+1', '-.5', '-1e-3', '3', '', 'a=b', ' =x'])
    expect(csvCell(value, 'neutralise')).toBe(value);
  expect(csvCell(-2.5, 'neutralise')).toBe('-2.5');
  expect(csvCell({ a: '=1' }, 'neutralise')).toBe('{"a":"=1"}');
  expect(csvCell('=1+1', 'keep')).toBe('=1+1');
});
