import { cronRunsAfter } from '@botfleet/core';
import { deleteBotsOfOrganization, findSchedule } from '@botfleet/db';
import { scheduleTick } from '@botfleet/queue';
import { deletePrefixedKeys } from '@botfleet/testkit';
import request from 'supertest';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

// A minimum other than the default 60 shows that it comes from the settings, not a constant.
const MIN_INTERVAL = 30;

let h: ApiHarness;
let org: TestOrg;
/** Organizations whose bots this file created, so their schedules can be removed afterwards. */
const botOwners = new Set<string>();

beforeAll(async () => {
  h = await createApiHarness({ minScheduleIntervalSeconds: MIN_INTERVAL });
  org = await h.newOrg();
});
afterAll(async () => {
  // No active schedule is left in the shared database for a scheduler to find.
  for (const organizationId of botOwners) await deleteBotsOfOrganization(h.db, organizationId);
  await deletePrefixedKeys(h.deps.redis, h.queues.prefix);
  await h.close();
});

const newBot = async (o: TestOrg = org): Promise<string> => {
  const id = await h.newBot(o, { name: 'scheduled' });
  botOwners.add(o.id);
  return id;
};
const getSchedule = (botId: string, o: TestOrg = org) =>
  request(h.app).get(`/api/v1/bots/${botId}/schedule`).set(o.auth('read'));
const putSchedule = (botId: string, body: object, o: TestOrg = org) =>
  request(h.app).put(`/api/v1/bots/${botId}/schedule`).set(o.auth('write')).send(body);
/** What an interval schedule (or one never set) shows of the cron-era fields. */
const NOT_CRON = { cron: null, timezone: 'UTC', overlap: 'skip', params: {}, nextRuns: [] };
const jobScheduler = (botId: string) => h.queues.get(scheduleTick.queue).getJobScheduler(`bot-${botId}`);

describe('GET /api/v1/bots/:botId/schedule', () => {
  it('answers a never-set schedule with nulls and active false', async () => {
    const res = await getSchedule(await newBot());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...NOT_CRON, interval: null, active: false, nextRunAt: null, lastRunAt: null });
  });
});

describe('PUT /api/v1/bots/:botId/schedule', () => {
  it('activates: nextRunAt is one interval from now and the job scheduler fires exactly then', async () => {
    const botId = await newBot();
    const before = Date.now();
    const res = await putSchedule(botId, { interval: 120, active: true });
    const after = Date.now();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...NOT_CRON,
      interval: 120,
      active: true,
      nextRunAt: expect.any(Number),
      lastRunAt: null,
      nextRuns: expect.any(Array),
    });
    expect(res.body.nextRunAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(res.body.nextRunAt).toBeLessThanOrEqual(after + 120_000);
    expect((await getSchedule(botId)).body).toEqual(res.body);

    const scheduler = await jobScheduler(botId);
    expect(scheduler).toMatchObject({ every: 120_000, next: res.body.nextRunAt, template: { data: { botId } } });
  });

  it('saving the same active schedule again keeps its next run', async () => {
    const botId = await newBot();
    const first = await putSchedule(botId, { interval: 60, active: true });
    const again = await putSchedule(botId, { interval: 60, active: true });
    expect(again.body).toEqual(first.body);
    expect((await jobScheduler(botId))?.next).toBe(first.body.nextRunAt);
  });

  it('changing the interval starts a new series one new interval from now', async () => {
    const botId = await newBot();
    await putSchedule(botId, { interval: 60, active: true });
    const before = Date.now();
    const res = await putSchedule(botId, { interval: 3600, active: true });
    expect(res.body.interval).toBe(3600);
    expect(res.body.nextRunAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(res.body.nextRunAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
    expect(await jobScheduler(botId)).toMatchObject({ every: 3_600_000, next: res.body.nextRunAt });
  });

  it('deactivates: keeps the interval, clears nextRunAt and removes the job scheduler', async () => {
    const botId = await newBot();
    await putSchedule(botId, { interval: 60, active: true });
    const res = await putSchedule(botId, { interval: 90, active: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...NOT_CRON, interval: 90, active: false, nextRunAt: null, lastRunAt: null });
    expect((await getSchedule(botId)).body).toEqual(res.body);
    expect(await jobScheduler(botId)).toBeUndefined();
    expect(await findSchedule(h.db, botId)).toMatchObject({ nextRunAt: null });
  });

  it('a paused bot keeps its schedule active but has no next run and nothing armed', async () => {
    const botId = await newBot();
    await request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status: 'paused' });
    const res = await putSchedule(botId, { interval: 60, active: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...NOT_CRON, interval: 60, active: true, nextRunAt: null, lastRunAt: null });
    expect(await jobScheduler(botId)).toBeUndefined();
  });

  it('GET hides the next run of an active schedule while its bot is paused', async () => {
    const botId = await newBot();
    const put = await putSchedule(botId, { interval: 60, active: true });
    await request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status: 'paused' });
    expect((await getSchedule(botId)).body).toEqual({
      ...NOT_CRON,
      interval: 60,
      active: true,
      nextRunAt: null,
      lastRunAt: null,
    });
    await request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status: 'active' });
    expect((await getSchedule(botId)).body.nextRunAt).toBe(put.body.nextRunAt);
  });

  it('accepts the configured minimum interval', async () => {
    const res = await putSchedule(await newBot(), { interval: MIN_INTERVAL, active: false });
    expect(res.status).toBe(200);
    expect(res.body.interval).toBe(MIN_INTERVAL);
  });

  it.each([
    ['interval below the minimum', { interval: MIN_INTERVAL - 1, active: true }, 'interval'],
    ['interval zero', { interval: 0, active: true }, 'interval'],
    ['interval negative', { interval: -60, active: true }, 'interval'],
    ['interval not an integer', { interval: 60.5, active: true }, 'interval'],
    ['interval a string', { interval: '60', active: true }, 'interval'],
    ['interval missing', { active: true }, 'interval'],
    ['interval null', { interval: null, active: true }, 'interval'],
    ['active missing', { interval: 60 }, 'active'],
    ['active not a boolean', { interval: 60, active: 'yes' }, 'active'],
    ['unknown field', { interval: 60, active: true, every: 60 }, 'every'],
  ])('rejects %s with a 400 naming the field and changes nothing', async (_case, body, field) => {
    const botId = await newBot();
    const res = await putSchedule(botId, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expect(await findSchedule(h.db, botId)).toBeNull();
  });

  it('names the configured minimum in the message', async () => {
    const res = await putSchedule(await newBot(), { interval: 1, active: true });
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ path: 'interval', message: `must be at least ${MIN_INTERVAL} seconds` }),
    ]);
  });
});

describe('access', () => {
  it('needs a key (401), write permission to PUT (403) and read to GET', async () => {
    const botId = await newBot();
    expect((await request(h.app).get(`/api/v1/bots/${botId}/schedule`)).status).toBe(401);
    expect(
      (await request(h.app).put(`/api/v1/bots/${botId}/schedule`).send({ interval: 60, active: true })).status,
    ).toBe(401);
    const forbidden = await request(h.app)
      .put(`/api/v1/bots/${botId}/schedule`)
      .set(org.auth('read'))
      .send({ interval: 60, active: true });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    expect((await getSchedule(botId)).status).toBe(200);
  });

  it('answers 404 for another organization’s bot and for an unknown bot, changing nothing', async () => {
    const botId = await newBot();
    const stranger = await h.newOrg();
    for (const res of [
      await getSchedule(botId, stranger),
      await putSchedule(botId, { interval: 60, active: true }, stranger),
      await getSchedule('bot_unknown'),
      await putSchedule('bot_unknown', { interval: 60, active: true }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await findSchedule(h.db, botId)).toBeNull();
    expect(await jobScheduler(botId)).toBeUndefined();
  });
});

describe('cron schedules', () => {
  it('arms a cron in its zone: nextRunAt and nextRuns are the zone’s occurrences, and BullMQ fires at the first', async () => {
    const botId = await newBot();
    const before = new Date();
    const res = await putSchedule(botId, { cron: '0 9 * * 1-5', timezone: 'Europe/Paris', active: true });
    expect(res.status).toBe(200);
    const expected = cronRunsAfter('0 9 * * 1-5', 'Europe/Paris', before, 5);
    expect(res.body).toEqual({
      interval: null,
      cron: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      overlap: 'skip',
      params: {},
      active: true,
      nextRunAt: expected[0],
      lastRunAt: null,
      nextRuns: expected,
    });
    expect((await getSchedule(botId)).body).toEqual(res.body);
    expect(await jobScheduler(botId)).toMatchObject({ pattern: '0 9 * * 1-5', tz: 'Europe/Paris', next: expected[0] });
  });

  it('lists nextRuns for an interval schedule too, one interval apart', async () => {
    const res = await putSchedule(await newBot(), { interval: 60, active: true, overlap: 'allow' });
    const { nextRunAt, nextRuns, overlap } = res.body;
    expect(overlap).toBe('allow');
    expect(nextRuns).toEqual([0, 1, 2, 3, 4].map((i) => nextRunAt + i * 60_000));
  });

  it('setting a cron clears the interval, and the reverse, re-arming the job scheduler each time', async () => {
    const botId = await newBot();
    await putSchedule(botId, { interval: 60, active: true });
    const cron = await putSchedule(botId, { cron: '*/5 * * * *', active: true });
    expect(cron.body).toMatchObject({ interval: null, cron: '*/5 * * * *', timezone: 'UTC' });
    expect(await jobScheduler(botId)).toMatchObject({ pattern: '*/5 * * * *', next: cron.body.nextRunAt });
    expect((await jobScheduler(botId))?.every).toBeUndefined();
    const interval = await putSchedule(botId, { interval: 60, active: true });
    expect(interval.body).toMatchObject({ interval: 60, cron: null });
    expect(await jobScheduler(botId)).toMatchObject({ every: 60_000, next: interval.body.nextRunAt });
  });

  it('keeps schedule params, checked against the bot’s parameters like a trigger', async () => {
    const botId = await h.newBot(
      org,
      { name: 'action', kind: 'action' },
      { manifest: { parameters: [{ name: 'city', type: 'string', required: true }] } },
    );
    botOwners.add(org.id);
    const missing = await putSchedule(botId, { interval: 60, active: true });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([expect.objectContaining({ path: 'params.city' })]);
    const wrong = await putSchedule(botId, { interval: 60, active: true, params: { city: 7 } });
    expect(wrong.status).toBe(400);
    expect(await findSchedule(h.db, botId)).toBeNull();
    const ok = await putSchedule(botId, { interval: 60, active: true, params: { city: 'Oslo' } });
    expect(ok.status).toBe(200);
    expect(ok.body.params).toEqual({ city: 'Oslo' });
  });

  it.each([
    ['a cron of 4 fields', { cron: '0 9 * *', active: true }, 'cron'],
    ['a cron out of range', { cron: '0 25 * * *', active: true }, 'cron'],
    ['a cron that is not one', { cron: 'every monday', active: true }, 'cron'],
    ['a seconds cron below the minimum', { cron: '*/10 * * * * *', active: true }, 'cron'],
    ['an unknown zone', { cron: '0 9 * * *', timezone: 'Europe/Atlantis', active: true }, 'timezone'],
    ['both interval and cron', { interval: 60, cron: '0 9 * * *', active: true }, 'cron'],
    ['an unknown overlap', { interval: 60, overlap: 'queue', active: true }, 'overlap'],
  ])('rejects %s with a 400 naming the field and changes nothing', async (_case, body, field) => {
    const botId = await newBot();
    await putSchedule(botId, { interval: 60, active: false });
    const before = await findSchedule(h.db, botId);
    const res = await putSchedule(botId, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
    expect(await findSchedule(h.db, botId)).toEqual(before);
    expect(await jobScheduler(botId)).toBeUndefined();
  });
});
