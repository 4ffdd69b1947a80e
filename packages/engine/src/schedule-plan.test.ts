import { nextRunAfter } from '@botfleet/core';
import { armedMatches, armPlan, seriesStart } from './schedule-plan';

const now = new Date('2026-11-21T12:00:00.000Z');

describe('seriesStart', () => {
  it('starts one interval from now when nothing is planned', () => {
    expect(seriesStart(null, 90, now)).toEqual(new Date('2026-11-21T12:01:30.000Z'));
  });

  it('keeps a planned slot that is still ahead', () => {
    const planned = new Date('2026-11-21T12:00:40.000Z');
    expect(seriesStart(planned, 90, now)).toBe(planned);
  });

  it('fires a missed slot once, now', () => {
    expect(seriesStart(new Date('2026-11-21T11:00:00.000Z'), 90, now)).toBe(now);
    expect(seriesStart(now, 90, now)).toBe(now);
  });
});

describe('armPlan', () => {
  const interval = { kind: 'interval', intervalSeconds: 90 } as const;
  const cron = { kind: 'cron', cron: '0 9 * * *', timezone: 'Europe/Paris' } as const;

  it('starts an interval series where seriesStart says, and reports that slot first', () => {
    const planned = new Date('2026-11-21T12:00:40.000Z');
    expect(armPlan('bot_1', interval, planned, now)).toEqual({
      input: { botId: 'bot_1', intervalSeconds: 90, startAt: planned },
      first: planned,
    });
    expect(armPlan('bot_1', interval, null, now).first).toEqual(new Date('2026-11-21T12:01:30.000Z'));
  });

  it('arms a cron on its pattern and zone, first at its next occurrence when nothing was missed', () => {
    for (const nextRunAt of [null, new Date('2026-11-22T08:00:00.000Z')]) {
      expect(armPlan('bot_1', cron, nextRunAt, now)).toEqual({
        input: { botId: 'bot_1', cron: '0 9 * * *', timezone: 'Europe/Paris', fireNow: false },
        first: nextRunAfter(cron, now),
      });
    }
    // 09:00 in Paris is 08:00 UTC in November.
    expect(armPlan('bot_1', cron, null, now).first).toEqual(new Date('2026-11-22T08:00:00.000Z'));
  });

  it('fires a cron’s missed slot once, now', () => {
    for (const nextRunAt of [new Date('2026-11-21T08:00:00.000Z'), now]) {
      expect(armPlan('bot_1', cron, nextRunAt, now)).toEqual({
        input: { botId: 'bot_1', cron: '0 9 * * *', timezone: 'Europe/Paris', fireNow: true },
        first: now,
      });
    }
  });
});

describe('armedMatches', () => {
  it('matches an interval by its period only', () => {
    const spec = { kind: 'interval', intervalSeconds: 60 } as const;
    expect(armedMatches({ everyMs: 60_000, pattern: null, tz: null }, spec)).toBe(true);
    expect(armedMatches({ everyMs: 90_000, pattern: null, tz: null }, spec)).toBe(false);
    expect(armedMatches({ everyMs: null, pattern: '* * * * *', tz: 'UTC' }, spec)).toBe(false);
  });

  it('matches a cron by pattern and zone, an unset zone being UTC', () => {
    const spec = { kind: 'cron', cron: '*/5 * * * *', timezone: 'UTC' } as const;
    expect(armedMatches({ everyMs: null, pattern: '*/5 * * * *', tz: null }, spec)).toBe(true);
    expect(armedMatches({ everyMs: null, pattern: '*/5 * * * *', tz: 'UTC' }, spec)).toBe(true);
    expect(armedMatches({ everyMs: null, pattern: '*/5 * * * *', tz: 'Europe/Paris' }, spec)).toBe(false);
    expect(armedMatches({ everyMs: null, pattern: '*/10 * * * *', tz: 'UTC' }, spec)).toBe(false);
    expect(armedMatches({ everyMs: 300_000, pattern: null, tz: null }, spec)).toBe(false);
  });
});
