import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { redisSettingsFromUrl } from '@botfleet/core';
import { countExecutionsPerSlot, findSchedule, listExecutions, type ExecutionSummary } from '@botfleet/db';
import { createTestDatabase, type TestDatabase } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { executionRun, scheduleTick } from '@botfleet/queue';
import { deletePrefixedKeys, testRedisUrl, waitUntil } from '@botfleet/testkit';
import request from 'supertest';
import { startScheduler, type SchedulerHandle } from './start-scheduler';

/*
 * The schedule runner end to end on real PostgreSQL, Redis and BullMQ: the API writes schedules
 * (and arms them), schedulers turn ticks into pending executions with an `execution.run` job.
 * No execution worker runs here, so every scheduled execution stays pending.
 *
 * A scheduler arms every active schedule in its database, so this file uses a database of its
 * own: on the shared test database it would also fire other test runs' schedules (in its own
 * queue prefix, as a second series) and they would fire this file's.
 */

const REDIS = redisSettingsFromUrl(testRedisUrl());
const RECONCILE_MS = 500;
// Long enough for two 1-second ticks that must not come.
const QUIET_MS = 2_500;

let testDb: TestDatabase;
let h: ApiHarness;
let org: TestOrg;
let scheduler: SchedulerHandle;
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  h = await createApiHarness({ minScheduleIntervalSeconds: 1 }, { databaseUrl: testDb.url });
  org = await h.newOrg();
  scheduler = await startScheduler({
    db: h.db,
    redis: REDIS,
    queuePrefix: h.queues.prefix,
    logger,
    reconcileIntervalMs: RECONCILE_MS,
  });
});
afterAll(async () => {
  await scheduler?.stop();
  await deletePrefixedKeys(h.deps.redis, h.queues.prefix);
  await h.close();
  await testDb.drop();
});

const api = {
  newBot: () => h.newBot(org, { name: 'every second' }),
  // overlap `allow`: no worker runs here, so every run stays pending and `skip` would fire only one.
  putSchedule: (botId: string, body: { interval: number; active: boolean }) =>
    request(h.app)
      .put(`/api/v1/bots/${botId}/schedule`)
      .set(org.auth('write'))
      .send({ overlap: 'allow', ...body }),
  getSchedule: (botId: string) => request(h.app).get(`/api/v1/bots/${botId}/schedule`).set(org.auth('read')),
  setStatus: (botId: string, status: 'active' | 'paused') =>
    request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status }),
};

/** How the waits below poll: each probe queries the database, so every 100 ms, for 10 s unless told otherwise. */
const POLL = { timeoutMs: 10_000, intervalMs: 100 };

/** The slot a row belongs to; unscheduled rows sort last, as NULLs do in an ascending ORDER BY. */
const slotOf = (row: ExecutionSummary) => row.scheduledFor?.getTime() ?? Number.POSITIVE_INFINITY;
/** The bot's scheduled executions, oldest slot first. */
const scheduledExecutions = async (botId: string): Promise<ExecutionSummary[]> => {
  const page = await listExecutions(h.db, botId, { limit: 1_000 });
  if (page.nextCursor !== null) throw new Error(`bot ${botId} has more executions than one page`);
  return page.items.filter((row) => row.trigger === 'schedule').sort((a, b) => slotOf(a) - slotOf(b) || 0);
};
const jobScheduler = (botId: string) => h.queues.get(scheduleTick.queue).getJobScheduler(`bot-${botId}`);
const atLeast = (botId: string, n: number, timeoutMs = 10_000) =>
  waitUntil(
    async () => {
      const rows = await scheduledExecutions(botId);
      return rows.length >= n && rows;
    },
    { ...POLL, timeoutMs, message: `${n} scheduled executions` },
  );

/** No tick of this bot armed, queued or in flight: anything that fires after this is a bug. */
const settled = (botId: string) =>
  waitUntil(
    async () => {
      if (await jobScheduler(botId)) return false;
      const ticks = await h.queues.get(scheduleTick.queue).getJobs(['active', 'waiting', 'delayed', 'prioritized']);
      return !ticks.some((job) => job.data.botId === botId);
    },
    { ...POLL, message: 'the schedule to wind down' },
  );

/** Waits out two ticks' worth of time and checks no execution was created meanwhile. */
async function expectQuiet(botId: string): Promise<void> {
  await settled(botId);
  const before = (await scheduledExecutions(botId)).length;
  await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
  expect((await scheduledExecutions(botId)).length).toBe(before);
  expect(await jobScheduler(botId)).toBeUndefined();
}

/** Every slot fired once, and consecutive slots are one interval apart (one series, no phantom ticks). */
function expectOneSeries(slots: number[], intervalMs: number): void {
  expect(new Set(slots).size).toBe(slots.length);
  for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!).toBe(intervalMs);
}

it('a 1-second schedule creates pending scheduled executions with their execution.run jobs, on time', async () => {
  const botId = await api.newBot();
  const put = await api.putSchedule(botId, { interval: 1, active: true });
  expect(put.status).toBe(200);

  const rows = await atLeast(botId, 3);
  // The first run happens exactly when PUT said it would.
  expect(rows[0]!.scheduledFor!.getTime()).toBe(put.body.nextRunAt);
  expectOneSeries(
    rows.map((r) => r.scheduledFor!.getTime()),
    1000,
  );
  for (const row of rows) {
    expect(row).toMatchObject({ botId, organizationId: org.id, trigger: 'schedule', status: 'pending', params: {} });
    const job = await h.queues.get(executionRun.queue).getJob(row.id);
    expect(job).toMatchObject({ name: 'execution.run', data: { executionId: row.id } });
  }

  // lastRunAt is the latest tick's slot and nextRunAt the slot after it.
  await waitUntil(
    async () => {
      const latest = (await scheduledExecutions(botId)).at(-1)!.scheduledFor!.getTime();
      const res = await api.getSchedule(botId);
      return res.body.lastRunAt === latest && res.body.nextRunAt === latest + 1000 && res.body;
    },
    { ...POLL, message: 'GET to show the latest run' },
  );

  await api.putSchedule(botId, { interval: 1, active: false });
});

it('stops when the schedule is deactivated', async () => {
  const botId = await api.newBot();
  await api.putSchedule(botId, { interval: 1, active: true });
  await atLeast(botId, 1);
  const res = await api.putSchedule(botId, { interval: 1, active: false });
  expect(res.body).toMatchObject({ active: false, nextRunAt: null });
  await expectQuiet(botId);
});

it('stops while the bot is paused and resumes one interval after it is active again', async () => {
  const botId = await api.newBot();
  await api.putSchedule(botId, { interval: 1, active: true });
  await atLeast(botId, 1);
  expect((await api.setStatus(botId, 'paused')).status).toBe(200);
  // The API does not disarm on PATCH: the next tick (or a reconcile pass) sees the paused bot.
  await expectQuiet(botId);
  expect((await api.getSchedule(botId)).body).toMatchObject({ interval: 1, active: true, nextRunAt: null });
  expect(await findSchedule(h.db, botId)).toMatchObject({ nextRunAt: null });

  const count = (await scheduledExecutions(botId)).length;
  const resumedAt = Date.now();
  await api.setStatus(botId, 'active');
  const rows = await atLeast(botId, count + 2);
  const resumed = rows.slice(count).map((r) => r.scheduledFor!.getTime());
  expect(resumed[0]).toBeGreaterThanOrEqual(resumedAt + 1000);
  expectOneSeries(resumed, 1000);
  await api.putSchedule(botId, { interval: 1, active: false });
});

it('stops when the bot is deleted', async () => {
  const botId = await api.newBot();
  await api.putSchedule(botId, { interval: 1, active: true });
  await atLeast(botId, 1);
  expect((await request(h.app).delete(`/api/v1/bots/${botId}`).set(org.auth('write'))).status).toBe(204);
  await expectQuiet(botId);
  expect(await scheduledExecutions(botId)).toEqual([]);
});

it('comes back after Redis loses its keys, once the reconciler runs, without re-firing a slot', async () => {
  const botId = await api.newBot();
  await api.putSchedule(botId, { interval: 1, active: true });
  await atLeast(botId, 1);
  await deletePrefixedKeys(h.deps.redis, h.queues.prefix);
  const flushedAt = Date.now();
  expect(await jobScheduler(botId)).toBeUndefined();

  await waitUntil(() => jobScheduler(botId), {
    ...POLL,
    timeoutMs: 5_000,
    message: 'the reconciler to re-arm the schedule',
  });
  const before = (await scheduledExecutions(botId)).length;
  const rows = await atLeast(botId, before + 2);
  expect(rows.at(-1)!.scheduledFor!.getTime()).toBeGreaterThan(flushedAt);
  expect(new Set(rows.map((r) => r.scheduledFor!.getTime())).size).toBe(rows.length);
  // The new tick also produced its job in the (flushed) executions queue.
  expect(await h.queues.get(executionRun.queue).getJob(rows.at(-1)!.id)).toBeDefined();
  await api.putSchedule(botId, { interval: 1, active: false });
});

it('two schedulers running together fire each tick once, also when both re-arm after a flush', async () => {
  const second = await startScheduler({
    db: h.db,
    redis: REDIS,
    queuePrefix: h.queues.prefix,
    logger,
    reconcileIntervalMs: RECONCILE_MS,
  });
  try {
    const botId = await api.newBot();
    await api.putSchedule(botId, { interval: 1, active: true });
    const rows = await atLeast(botId, 5, 15_000);
    expectOneSeries(
      rows.map((r) => r.scheduledFor!.getTime()),
      1000,
    );

    // Both processes find the scheduler missing and arm it at the same moment.
    await deletePrefixedKeys(h.deps.redis, h.queues.prefix);
    const flushedAt = Date.now();
    await Promise.all([scheduler.reconcileNow(), second.reconcileNow()]);
    // A tick already in flight during the flush may still land with an older slot; the re-armed
    // series is what comes after the flush.
    const slots = await waitUntil(
      async () => {
        const all = (await scheduledExecutions(botId)).map((r) => r.scheduledFor!.getTime());
        return all.filter((slot) => slot > flushedAt).length >= 4 && all;
      },
      { ...POLL, timeoutMs: 15_000, message: '4 ticks after the flush' },
    );
    expect(new Set(slots).size).toBe(slots.length);
    expectOneSeries(
      slots.filter((slot) => slot > flushedAt),
      1000,
    );

    // Per slot exactly one execution, counted in the database itself.
    const perSlot = await countExecutionsPerSlot(h.db, botId);
    expect(perSlot.every((g) => g.count === 1)).toBe(true);
    await api.putSchedule(botId, { interval: 1, active: false });
  } finally {
    await second.stop();
  }
});

it('stop() returns promptly and is idempotent', async () => {
  const extra = await startScheduler({
    db: h.db,
    redis: REDIS,
    queuePrefix: h.queues.prefix,
    logger,
    reconcileIntervalMs: RECONCILE_MS,
  });
  const started = Date.now();
  await extra.stop();
  await extra.stop();
  expect(Date.now() - started).toBeLessThan(5_000);
});
