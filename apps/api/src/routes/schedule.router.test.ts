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
const jobScheduler = (botId: string) => h.queues.get(scheduleTick.queue).getJobScheduler(`bot-${botId}`);

describe('GET /api/v1/bots/:botId/schedule', () => {
  it('answers a never-set schedule with nulls and active false', async () => {
    const res = await getSchedule(await newBot());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ interval: null, active: false, nextRunAt: null, lastRunAt: null });
  });
});

describe('PUT /api/v1/bots/:botId/schedule', () => {
  it('activates: nextRunAt is one interval from now and the job scheduler fires exactly then', async () => {
    const botId = await newBot();
    const before = Date.now();
    const res = await putSchedule(botId, { interval: 120, active: true });
    const after = Date.now();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ interval: 120, active: true, nextRunAt: expect.any(Number), lastRunAt: null });
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
    expect(res.body).toEqual({ interval: 90, active: false, nextRunAt: null, lastRunAt: null });
    expect((await getSchedule(botId)).body).toEqual(res.body);
    expect(await jobScheduler(botId)).toBeUndefined();
    expect(await findSchedule(h.db, botId)).toMatchObject({ nextRunAt: null });
  });

  it('a paused bot keeps its schedule active but has no next run and nothing armed', async () => {
    const botId = await newBot();
    await request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status: 'paused' });
    const res = await putSchedule(botId, { interval: 60, active: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ interval: 60, active: true, nextRunAt: null, lastRunAt: null });
    expect(await jobScheduler(botId)).toBeUndefined();
  });

  it('GET hides the next run of an active schedule while its bot is paused', async () => {
    const botId = await newBot();
    const put = await putSchedule(botId, { interval: 60, active: true });
    await request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status: 'paused' });
    expect((await getSchedule(botId)).body).toEqual({ interval: 60, active: true, nextRunAt: null, lastRunAt: null });
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
    ['unknown field', { interval: 60, active: true, cron: '* * * * *' }, 'cron'],
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
