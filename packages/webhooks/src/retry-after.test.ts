import { parseRetryAfterMs } from './retry-after';

describe('parseRetryAfterMs', () => {
  const now = Date.parse('2026-11-23T15:00:00Z');
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('2', now)).toBe(2_000);
    expect(parseRetryAfterMs(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfterMs('Mon, 23 Nov 2026 15:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfterMs('Mon, 23 Nov 2026 14:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfterMs(null, now)).toBeNull();
    expect(parseRetryAfterMs('soon', now)).toBeNull();
    expect(parseRetryAfterMs('-5', now)).toBeNull();
    expect(parseRetryAfterMs('1.5', now)).toBeNull();
  });
});
