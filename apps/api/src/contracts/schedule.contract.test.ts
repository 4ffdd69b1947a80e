import { createPutScheduleSchema } from './schedule.contract';

describe('the PUT schedule body', () => {
  it('names the field in the PUT body', () => {
    const schema = createPutScheduleSchema(60);
    const paths = (body: unknown) => {
      const result = schema.safeParse(body);
      return result.success ? [] : result.error.issues.map((i) => i.path.join('.'));
    };
    expect(paths({ cron: '0 9 * * 1-5', timezone: 'Europe/Paris', active: true })).toEqual([]);
    expect(paths({ interval: 60, active: true, overlap: 'allow', params: { city: 'Oslo' } })).toEqual([]);
    expect(paths({ cron: 'every day', active: true })).toEqual(['cron']);
    expect(paths({ cron: '0 9 * * *', timezone: 'Europe/Nowhere', active: true })).toEqual(['timezone']);
    expect(paths({ interval: 60, cron: '0 9 * * *', active: true })).toEqual(['cron']);
    expect(paths({ active: true })).toEqual(['interval']);
    expect(paths({ interval: 10, active: true })).toEqual(['interval']);
    expect(paths({ interval: 60, active: true, overlap: 'queue' })).toEqual(['overlap']);
  });
});
