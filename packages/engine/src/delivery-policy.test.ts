import {
  claimWindow,
  decideDeliveryAttempt,
  extendsFailingStreak,
  nextRetryDelayMs,
  retryDelayMs,
  type DeliveryAnswer,
  type DeliveryPolicy,
} from './delivery-policy';

/*
 * Every row of what an attempt's answer makes of a delivery and its webhook (docs/webhooks.md),
 * without HTTP or a database: 2xx, 4xx, 410, 5xx, timeout, and a webhook failing for too long.
 */

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

describe('decideDeliveryAttempt', () => {
  const policy: DeliveryPolicy = { timeoutMs: 10_000, retryDelaysMs: [5_000, 300_000], disableAfterMs: 5 * 86_400_000 };
  const now = new Date('2026-11-28T03:00:00Z');
  const startedAt = new Date(now.getTime() - 1_000);
  const answer = (statusCode: number | null, more: Partial<DeliveryAnswer> = {}): DeliveryAnswer => ({
    ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
    statusCode,
    error: statusCode === null ? 'timed out after 10000 ms' : `receiver answered HTTP ${statusCode}`,
    durationMs: 12,
    retryAfterMs: null,
    ...more,
  });
  /** A failing streak begun `ago` ms before the attempt started. */
  const streakOf = (ago: number) => new Date(startedAt.getTime() - ago);
  const decide = (a: DeliveryAnswer, attemptInSeries = 1, failingSince: Date | null = null, p = policy) =>
    decideDeliveryAttempt(p, { answer: a, attemptInSeries, startedAt, failingSince }, now);

  it('2xx: delivered, and a failing streak ends', () => {
    expect(decide(answer(200))).toEqual({
      row: { status: 'succeeded' },
      outcome: 'delivered',
      retryInMs: null,
      disable: null,
      endsFailingStreak: false,
    });
    expect(decide(answer(204), 3, streakOf(60_000))).toMatchObject({ outcome: 'delivered', endsFailingStreak: true });
    expect(extendsFailingStreak(answer(200))).toBe(false);
  });

  it('4xx: a failed attempt, retried after the schedule’s delay while the series has one', () => {
    expect(decide(answer(400), 1, streakOf(0))).toEqual({
      row: { status: 'pending', nextAttemptAt: new Date(now.getTime() + 5_000) },
      outcome: 'retry',
      retryInMs: 5_000,
      disable: null,
      endsFailingStreak: false,
    });
    expect(decide(answer(404), 3, streakOf(0))).toMatchObject({ row: { status: 'failed' }, outcome: 'failed' });
    expect(extendsFailingStreak(answer(400))).toBe(true);
  });

  it('410: failed at once, retries left or not, and the webhook disabled as gone', () => {
    const gone = { reason: 'gone', message: 'the receiver answered 410 Gone' };
    expect(decide(answer(410))).toEqual({
      row: { status: 'failed' },
      outcome: 'failed',
      retryInMs: null,
      disable: gone,
      endsFailingStreak: false,
    });
    expect(decide(answer(410), 1, null, { ...policy, disableAfterMs: undefined })).toMatchObject({ disable: gone });
    // Gone is not a failure that counts towards a streak: nothing is noted for it.
    expect(extendsFailingStreak(answer(410))).toBe(false);
  });

  it('5xx: retried after each delay of the series, then failed', () => {
    expect(decide(answer(500), 1, streakOf(0))).toMatchObject({ outcome: 'retry', retryInMs: 5_000 });
    expect(decide(answer(503), 2, streakOf(0))).toMatchObject({
      row: { status: 'pending', nextAttemptAt: new Date(now.getTime() + 300_000) },
      retryInMs: 300_000,
    });
    expect(decide(answer(500), 3, streakOf(0))).toEqual({
      row: { status: 'failed' },
      outcome: 'failed',
      retryInMs: null,
      disable: null,
      endsFailingStreak: false,
    });
  });

  it('5xx with Retry-After: the receiver’s wait, capped by the longest delay, never an extra attempt', () => {
    expect(decide(answer(503, { retryAfterMs: 60_000 }), 1, streakOf(0))).toMatchObject({ retryInMs: 60_000 });
    expect(decide(answer(429, { retryAfterMs: 86_400_000 }), 1, streakOf(0))).toMatchObject({ retryInMs: 300_000 });
    expect(decide(answer(429, { retryAfterMs: 1_000 }), 3, streakOf(0))).toMatchObject({ outcome: 'failed' });
  });

  it('timeout (no answer): a failed attempt like any other, retried while the series has one', () => {
    expect(extendsFailingStreak(answer(null))).toBe(true);
    expect(decide(answer(null), 1, streakOf(0))).toMatchObject({ outcome: 'retry', retryInMs: 5_000, disable: null });
    expect(decide(answer(null), 3, streakOf(0))).toMatchObject({ outcome: 'failed', disable: null });
  });

  it('disable: a webhook failing for disableAfterMs is disabled, and the delivery given up', () => {
    const failing = { reason: 'failing', message: 'every delivery failed for 5 day(s)' };
    expect(decide(answer(500), 1, streakOf(5 * 86_400_000))).toEqual({
      row: { status: 'failed' },
      outcome: 'failed',
      retryInMs: null,
      disable: failing,
      endsFailingStreak: false,
    });
    expect(decide(answer(null), 1, streakOf(6 * 86_400_000))).toMatchObject({ disable: failing });
    // Just short of it, or with no bound set, the delivery is retried.
    expect(decide(answer(500), 1, streakOf(5 * 86_400_000 - 1))).toMatchObject({ outcome: 'retry', disable: null });
    expect(decide(answer(500), 1, streakOf(60 * 86_400_000), { ...policy, disableAfterMs: undefined })).toMatchObject({
      outcome: 'retry',
      disable: null,
    });
    // A bound of part of a day reads as such, to two decimals.
    expect(decide(answer(500), 1, streakOf(43_200_000), { ...policy, disableAfterMs: 43_200_000 }).disable).toEqual({
      reason: 'failing',
      message: 'every delivery failed for 0.5 day(s)',
    });
  });
});

describe('claimWindow', () => {
  it('takes rows due within a second of now, and leases each for four requests and 30 s', () => {
    const now = Date.parse('2026-11-28T03:00:00Z');
    expect(claimWindow({ timeoutMs: 10_000, retryDelaysMs: [] }, now)).toEqual({
      dueBy: new Date(now + 1_000),
      leaseUntil: new Date(now + 70_000),
    });
  });
});
