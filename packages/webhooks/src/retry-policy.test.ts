import { nextRetryDelayMs } from './retry-policy';

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
