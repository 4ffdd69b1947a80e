import { cronProblem, cronRunsAfter, isTimeZone, nextRunAfter, scheduleSpecOf, upcomingRuns } from './cron-schedule';

const iso = (runs: number[]) => runs.map((ms) => new Date(ms).toISOString());
const at = (isoTime: string) => new Date(isoTime);

describe('cronRunsAfter across daylight saving time', () => {
  // Known instants: Europe/Berlin moves 02:00 CET -> 03:00 CEST on 2026-03-29 and 03:00 CEST ->
  // 02:00 CET on 2026-10-25; America/New_York 02:00 EST -> 03:00 EDT on 2026-03-08 and
  // 02:00 EDT -> 01:00 EST on 2026-11-01.
  it('Berlin spring: a skipped 02:30 runs once, at 03:30 CEST', () => {
    expect(iso(cronRunsAfter('30 2 * * *', 'Europe/Berlin', at('2026-03-27T12:00:00Z'), 4))).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:30:00.000Z', // 03:30 CEST: 02:30 does not exist that night
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
      '2026-03-31T00:30:00.000Z',
    ]);
  });

  it('Berlin autumn: a repeated 02:30 runs once', () => {
    expect(iso(cronRunsAfter('30 2 * * *', 'Europe/Berlin', at('2026-10-23T12:00:00Z'), 4))).toEqual([
      '2026-10-24T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST); the second (01:30Z, CET) does not run
      '2026-10-26T01:30:00.000Z', // 02:30 CET
      '2026-10-27T01:30:00.000Z',
    ]);
  });

  it('Berlin: weekday 09:00 keeps local time through both changes', () => {
    const spring = iso(cronRunsAfter('0 9 * * 1-5', 'Europe/Berlin', at('2026-03-26T12:00:00Z'), 3));
    expect(spring).toEqual(['2026-03-27T08:00:00.000Z', '2026-03-30T07:00:00.000Z', '2026-03-31T07:00:00.000Z']);
    const autumn = iso(cronRunsAfter('0 9 * * 1-5', 'Europe/Berlin', at('2026-10-22T12:00:00Z'), 3));
    expect(autumn).toEqual(['2026-10-23T07:00:00.000Z', '2026-10-26T08:00:00.000Z', '2026-10-27T08:00:00.000Z']);
  });

  it('Berlin: an hourly cron has no run in the missing hour and one per wall-clock hour', () => {
    expect(iso(cronRunsAfter('0 * * * *', 'Europe/Berlin', at('2026-03-28T23:30:00Z'), 3))).toEqual([
      '2026-03-29T00:00:00.000Z', // 01:00 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST (02:00 never happens)
      '2026-03-29T02:00:00.000Z', // 04:00 CEST
    ]);
  });

  it('New York spring: a skipped 02:30 runs once, at 03:30 EDT', () => {
    expect(iso(cronRunsAfter('30 2 * * *', 'America/New_York', at('2026-03-06T12:00:00Z'), 3))).toEqual([
      '2026-03-07T07:30:00.000Z', // 02:30 EST
      '2026-03-08T07:30:00.000Z', // 03:30 EDT
      '2026-03-09T06:30:00.000Z', // 02:30 EDT
    ]);
  });

  it('New York autumn: a repeated 01:30 runs once', () => {
    expect(iso(cronRunsAfter('30 1 * * *', 'America/New_York', at('2026-10-30T12:00:00Z'), 3))).toEqual([
      '2026-10-31T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T05:30:00.000Z', // the first 01:30 (EDT); the second (06:30Z, EST) does not run
      '2026-11-02T06:30:00.000Z', // 01:30 EST
    ]);
  });

  it('UTC has no clock changes', () => {
    expect(iso(cronRunsAfter('30 2 * * *', 'UTC', at('2026-03-28T12:00:00Z'), 2))).toEqual([
      '2026-03-29T02:30:00.000Z',
      '2026-03-30T02:30:00.000Z',
    ]);
  });
});

describe('upcomingRuns and nextRunAfter', () => {
  it('lists an interval schedule from its next run', () => {
    expect(upcomingRuns({ kind: 'interval', intervalSeconds: 60 }, new Date(1_000), 3)).toEqual([
      1_000, 61_000, 121_000,
    ]);
  });

  it('lists a cron schedule from its next run, which may be a collapsed missed run', () => {
    const spec = scheduleSpecOf({ intervalSeconds: null, cron: '0 12 * * *', timezone: 'UTC' });
    expect(iso(upcomingRuns(spec, at('2026-11-23T10:00:03Z'), 3))).toEqual([
      '2026-11-23T10:00:03.000Z',
      '2026-11-23T12:00:00.000Z',
      '2026-11-24T12:00:00.000Z',
    ]);
    expect(nextRunAfter(spec, at('2026-11-23T12:00:00Z'))).toEqual(at('2026-11-24T12:00:00Z'));
  });
});

describe('cron validation', () => {
  it('accepts 5 fields, and 6 with seconds when far enough apart', () => {
    expect(cronProblem('0 9 * * 1-5', 'Europe/Paris', 60)).toBeNull();
    expect(cronProblem('*/30 * * * * *', 'UTC', 30)).toBeNull();
  });

  it('refuses wrong field counts, macros, bad values and runs too close together', () => {
    expect(cronProblem('* * * *', 'UTC', 60)).toMatch(/5 fields/);
    expect(cronProblem('@daily', 'UTC', 60)).toMatch(/5 fields/);
    expect(cronProblem('61 * * * *', 'UTC', 60)).toMatch(/not a valid cron/);
    expect(cronProblem('*/10 * * * * *', 'UTC', 60)).toMatch(/more often than every 60 seconds/);
    expect(cronProblem('* * * * *', 'UTC', 300)).toMatch(/more often than every 300 seconds/);
  });

  it('knows IANA zones', () => {
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
  });
});
