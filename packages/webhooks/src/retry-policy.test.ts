import { nextRetryDelayMs, parseRetryAfterMs, retryDelayMs } from './retry-policy';

describe('nextRetryDelayMs', () => {
  const delays = [5_000, 300_000, 1_800_000];

  it('waits the configured delay after each failed attempt, then gives up', () => {
    expect(nextRetryDelayMs(1, delays)).toBe(5_000);
    expect(nextRetryDelayMs(2, delays)).toBe(300_000);
    expect(nextRetryDelayMs(3, delays)).toBe(1_800_000);
    // 1 first attempt + 3 retries made: the delivery is failed.
    expect(nextRetryDelayMs(4, delays)).toBeNull();
    expect(nextRetryDelayMs(40, delays)).toBeNull();
  });

  it('never retries with no delays configured', () => {
    expect(nextRetryDelayMs(1, [])).toBeNull();
  });

  it('rejects an attempt count that cannot happen', () => {
    expect(() => nextRetryDelayMs(0, delays)).toThrow(RangeError);
    expect(() => nextRetryDelayMs(1.5, delays)).toThrow(RangeError);
  });
});

describe('retryDelayMs', () => {
  it('uses the receiver’s Retry-After instead of the schedule, even when it is longer', () => {
    expect(retryDelayMs(1, [1_000, 5_000], 2_000)).toBe(2_000);
    expect(retryDelayMs(1, [300, 300], 0)).toBe(0);
    expect(retryDelayMs(1, [300, 300], null)).toBe(300);
  });

  it('caps Retry-After by the longest delay of the schedule, however short the schedule', () => {
    expect(retryDelayMs(1, [5_000, 36_000_000], 7 * 86_400_000)).toBe(36_000_000);
    // Delays of seconds: `Retry-After: 60` waits seconds, not a minute.
    expect(retryDelayMs(1, [1_000, 3_000], 60_000)).toBe(3_000);
    expect(retryDelayMs(1, [300, 300], 3_600_000)).toBe(300);
  });

  it('never adds an attempt the schedule does not have', () => {
    expect(retryDelayMs(3, [300, 300], 1_000)).toBeNull();
  });
});

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
