import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { redisSettingsFromUrl } from '@botfleet/core';
import { findSchedule, listExecutions, type ExecutionSummary } from '@botfleet/db';
import { cancelExecution, claimExecution } from '@botfleet/db/state';
import { createTestDatabase, type TestDatabase } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { deletePrefixedKeys, testRedisUrl, waitUntil } from '@botfleet/testkit';
import request from 'supertest';
import { startScheduler, type SchedulerHandle } from './start-scheduler';

/*
 * Cron schedules end to end on real PostgreSQL, Redis and BullMQ: the API arms a BullMQ job
 * scheduler with the cron pattern and zone, schedulers turn its ticks into executions. No
 * execution worker runs: a test that needs a run to be "slow" claims it and keeps it running.
 * A database of this file's own, for the reason scheduler.test.ts gives.
 */

const REDIS = redisSettingsFromUrl(testRedisUrl());
const POLL = { timeoutMs: 15_000, intervalMs: 100 };

let testDb: TestDatabase;
let h: ApiHarness;
let org: TestOrg;
const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });
const running: SchedulerHandle[] = [];

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  h = await createApiHarness({ minScheduleIntervalSeconds: 1 }, { databaseUrl: testDb.url });
  org = await h.newOrg();
});
afterEach(async () => {
  for (const scheduler of running.splice(0)) await scheduler.stop();
});
afterAll(async () => {
  await deletePrefixedKeys(h.deps.redis, h.queues.prefix);
  await h.close();
  await testDb.drop();
});

async function startOne(): Promise<SchedulerHandle> {
  const scheduler = await startScheduler({
    db: h.db,
    redis: REDIS,
    queuePrefix: h.queues.prefix,
    logger,
    reconcileIntervalMs: 60_000,
  });
  running.push(scheduler);
  return scheduler;
}

const putSchedule = (botId: string, body: object) =>
  request(h.app).put(`/api/v1/bots/${botId}/schedule`).set(org.auth('write')).send(body);

const scheduled = async (botId: string): Promise<ExecutionSummary[]> => {
  const page = await listExecutions(h.db, botId, { limit: 1_000 });
  return page.items
    .filter((row) => row.trigger === 'schedule')
    .sort((a, b) => a.scheduledFor!.getTime() - b.scheduledFor!.getTime());
};
const slots = async (botId: string) => (await scheduled(botId)).map((row) => row.scheduledFor!.getTime());
const atLeast = (botId: string, n: number) =>
  waitUntil(
    async () => {
      const rows = await scheduled(botId);
      return rows.length >= n && rows;
    },
    { ...POLL, message: `${n} scheduled executions` },
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('fires at the instants nextRuns announced, with the schedule’s params', async () => {
  await startOne();
  const botId = await h.newBot(
    org,
    { name: 'cron', kind: 'action' },
    { manifest: { parameters: [{ name: 'city', type: 'string' }] } },
  );
  const put = await putSchedule(botId, {
    cron: '*/2 * * * * *',
    timezone: 'America/New_York',
    overlap: 'allow',
    params: { city: 'Oslo' },
    active: true,
  });
  expect(put.status).toBe(200);
  const announced: number[] = put.body.nextRuns;
  expect(announced).toHaveLength(5);
  for (const at of announced) expect(at % 2_000).toBe(0);

  const rows = await atLeast(botId, 3);
  expect(rows.slice(0, 3).map((row) => row.scheduledFor!.getTime())).toEqual(announced.slice(0, 3));
  for (const row of rows) expect(row).toMatchObject({ status: 'pending', params: { city: 'Oslo' } });
  await putSchedule(botId, { cron: '*/2 * * * * *', active: false });
});

it('overlap skip: no scheduled run starts while the previous one is still running (a slow bot)', async () => {
  await startOne();
  const botId = await h.newBot(org, { name: 'slow' });
  expect((await putSchedule(botId, { cron: '* * * * * *', active: true })).body.overlap).toBe('skip');
  const [first] = await atLeast(botId, 1);
  // The bot is slow: its run is claimed by a "worker" and stays running.
  expect(await claimExecution(h.db, first!.id)).not.toBeNull();
  const nextBefore = (await findSchedule(h.db, botId))!.nextRunAt!.getTime();
  await sleep(3_200);
  expect(await slots(botId)).toEqual([first!.scheduledFor!.getTime()]);
  // Skipped slots still move the schedule on.
  expect((await findSchedule(h.db, botId))!.nextRunAt!.getTime()).toBeGreaterThan(nextBefore + 2_000);

  // Once the run ends, the next slot fires again.
  await cancelExecution(h.db, org.id, first!.id);
  const endedAt = Date.now();
  const rows = await atLeast(botId, 2);
  expect(rows[1]!.scheduledFor!.getTime()).toBeGreaterThanOrEqual(endedAt - 1_000);
  await putSchedule(botId, { cron: '* * * * * *', active: false });
});

it('missed occurrences collapse into one run when the scheduler is back after downtime', async () => {
  const first = await startOne();
  const botId = await h.newBot(org, { name: 'downtime' });
  await putSchedule(botId, { cron: '* * * * * *', overlap: 'allow', active: true });
  await atLeast(botId, 1);
  await first.stop();
  const stoppedAt = Date.now();
  const before = await slots(botId);
  await sleep(3_500); // three or four occurrences go by with no scheduler running

  const restartedAt = Date.now();
  await startOne();
  const after = (await atLeast(botId, before.length + 3)).map((row) => row.scheduledFor!.getTime());
  const fresh = after.slice(before.length);
  // One run stands for every occurrence missed while down; then one per second again.
  const missed = fresh.filter((slot) => slot < restartedAt);
  expect(missed).toHaveLength(1);
  expect(missed[0]).toBeGreaterThanOrEqual(stoppedAt - 1_000);
  for (const slot of fresh.slice(1)) expect(slot).toBeGreaterThanOrEqual(restartedAt);
  await putSchedule(botId, { cron: '* * * * * *', active: false });
});

it('after Redis lost the schedule, the reconciler fires one run at once for the missed occurrences', async () => {
  const first = await startOne();
  const botId = await h.newBot(org, { name: 'flushed' });
  await putSchedule(botId, { cron: '*/5 * * * * *', overlap: 'allow', active: true });
  await first.stop();
  await deletePrefixedKeys(h.deps.redis, h.queues.prefix);
  const due = (await findSchedule(h.db, botId))!.nextRunAt!.getTime();
  await waitUntil(() => Date.now() > due + 5_500, { ...POLL, message: 'two occurrences missed' });

  const restartedAt = Date.now();
  await startOne(); // its reconcile pass re-arms the schedule
  const rows = await atLeast(botId, 2);
  const [collapsed, next] = rows.map((row) => row.scheduledFor!.getTime());
  // Fired at once (not at the next */5 occurrence, and not once per missed occurrence) ...
  expect(collapsed).toBeGreaterThanOrEqual(restartedAt);
  // Off the pattern is what tells "at once" from "at the next occurrence"; the bound only leaves a
  // loaded machine time to start the scheduler and run its reconcile pass.
  expect(collapsed).toBeLessThan(restartedAt + 10_000);
  expect(collapsed! % 5_000).not.toBe(0); // off the pattern (1 chance in 5,000 that it lands on it)
  // ... then back on the pattern.
  expect(next! % 5_000).toBe(0);
  expect(next!).toBeGreaterThan(collapsed!);
  await putSchedule(botId, { cron: '*/5 * * * * *', active: false });
});
