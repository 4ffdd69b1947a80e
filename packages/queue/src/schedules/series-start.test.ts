import { seriesStart } from './series-start';

describe('seriesStart', () => {
  const now = new Date('2026-11-21T12:00:00.000Z');

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
