import { decodeRunCursor, encodeRunCursor, phaseOf, START } from './run-cursor';

describe('run cursor', () => {
  it('round-trips every position, log ids past 2^53 included', () => {
    for (const cursor of [
      START,
      { attempt: 3, nextStep: 12, lastLogId: 9_007_199_254_740_993n, phase: 1 as const },
      { attempt: 1, nextStep: 0, lastLogId: 9_223_372_036_854_775_807n, phase: 3 as const },
      { attempt: 2, nextStep: 5, lastLogId: 40n, phase: 4 as const },
    ])
      expect(decodeRunCursor(encodeRunCursor(cursor))).toEqual(cursor);
  });

  it.each(['', '1.2.3', '1.2.3.5', 'a.b.c.d', '1.2.3.1.5', '-1.0.0.0', '1.2.9223372036854775808.1', ' 1.2.3.1'])(
    'refuses %j',
    (id) => expect(decodeRunCursor(id)).toBeNull(),
  );

  it('orders a run’s phases within an attempt, a requeued run apart from a new one', () => {
    expect(phaseOf('pending', 0)).toBe(0);
    expect(phaseOf('running', 1)).toBe(1);
    expect(phaseOf('pending', 1)).toBe(2);
    for (const status of ['completed', 'failed', 'cancelled'] as const) expect(phaseOf(status, 2)).toBe(3);
  });
});
