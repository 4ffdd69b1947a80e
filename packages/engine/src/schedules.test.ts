import { redisSettingsFromUrl, type Logger } from '@botfleet/core';
import { createPrismaClient, findSchedule, saveSchedule, updateBot, type PrismaClient } from '@botfleet/db';
import { createTestBot, createTestDatabase, createTestOrganization, type TestDatabase } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import {
  armSchedule,
  closeRedis,
  createQueues,
  createRedisConnection,
  scheduleTick,
  schedulerIdOf,
  type Queues,
  type RedisConnection,
} from '@botfleet/queue';
import { deletePrefixedKeys, redisConnected, testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import { randomBytes } from 'node:crypto';
import { applySchedule, fireScheduleTick, reconcileSchedules, type ScheduleSettings } from './schedules';

/*
 * The schedule commands against the real PostgreSQL and Redis, for what the API's and the
 * scheduler's tests do not reach: a PUT whose job scheduler Redis refuses, a reconcile pass
 * sorting every kind of scheduler at once, a slot skipped at the pending cap. A reconcile pass
 * reads every schedule of its database, so this file has a database of its own: on the shared one
 * it would arm, and move the next run of, other test files' schedules.
 */

let testDb: TestDatabase;
let db: PrismaClient;
let organizationId: string;
let redis: RedisConnection;
let queues: Queues;
let logger: Logger;

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  db = createPrismaClient(testDb.url, { poolSize: 4 });
  organizationId = (await createTestOrganization(db)).id;
  redis = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'producer');
  queues = createQueues(redis, uniqueQueuePrefix());
  await redisConnected(redis);
  logger = createLogger({ level: 'silent' });
});
afterAll(async () => {
  await deletePrefixedKeys(redis, queues.prefix);
  await queues.close();
  await closeRedis(redis);
  await db.$disconnect();
  await testDb.drop();
});

const jobScheduler = (botId: string) => queues.get(scheduleTick.queue).getJobScheduler(schedulerIdOf(botId));
const every = (intervalSeconds: number, active = true): ScheduleSettings => ({
  intervalSeconds,
  cron: null,
  timezone: 'UTC',
  overlap: 'skip',
  params: {},
  active,
});

async function newBot(status: 'active' | 'paused' = 'active') {
  const bot = await createTestBot(db, organizationId, { name: 'scheduled' });
  if (status !== 'active' && !(await updateBot(db, organizationId, bot.id, { status })))
    throw new Error(`bot ${bot.id} not found`);
  return { id: bot.id, status, parameters: [] };
}

/** Queues whose every call fails, as when Redis refuses after the row committed. */
function refusingQueues(): Queues {
  const closed = createQueues(redis, queues.prefix);
  void closed.close();
  return closed;
}

describe('applySchedule', () => {
  it('writes the row and answers when Redis refuses the job scheduler, leaving it to the reconciler', async () => {
    const bot = await newBot();
    const warn = jest.spyOn(logger, 'warn');
    const before = Date.now();
    const saved = await applySchedule({ db, queues: refusingQueues(), logger }, bot, every(120));
    expect(saved).toMatchObject({ botId: bot.id, intervalSeconds: 120, active: true });
    expect(saved.nextRunAt!.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(await findSchedule(db, bot.id)).toMatchObject({ active: true, nextRunAt: saved.nextRunAt });
    expect(await jobScheduler(bot.id)).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ botId: bot.id, err: expect.any(String) }),
      'job scheduler not updated; the reconciler will catch up',
    );
    warn.mockRestore();

    // The reconciler arms what the refused PUT could not, at the slot the row planned.
    await reconcileSchedules({ db, queues, logger });
    expect(await jobScheduler(bot.id)).toMatchObject({ every: 120_000, next: saved.nextRunAt!.getTime() });

    // Switched off while Redis refuses: the row says so at once, and the next pass disarms.
    const off = await applySchedule({ db, queues: refusingQueues(), logger }, bot, every(120, false));
    expect(off).toMatchObject({ active: false, nextRunAt: null });
    expect(await jobScheduler(bot.id)).toBeDefined();
    await reconcileSchedules({ db, queues, logger });
    expect(await jobScheduler(bot.id)).toBeUndefined();
  });
});

describe('reconcileSchedules', () => {
  it('arms missing and changed schedulers, disarms those of paused, switched-off and deleted bots, then rests', async () => {
    // Settle whatever an earlier test left, so the counts below are this test's own.
    await reconcileSchedules({ db, queues, logger });
    const soon = () => new Date(Date.now() + 60_000);

    const missing = await newBot();
    await saveSchedule(db, missing.id, { intervalSeconds: 60, active: true, nextRunAt: null });
    const changed = await newBot();
    await saveSchedule(db, changed.id, { intervalSeconds: 300, active: true, nextRunAt: null });
    await armSchedule(queues, { botId: changed.id, intervalSeconds: 60, startAt: soon() });
    const paused = await newBot('paused');
    await saveSchedule(db, paused.id, { intervalSeconds: 60, active: true, nextRunAt: soon() });
    await armSchedule(queues, { botId: paused.id, intervalSeconds: 60, startAt: soon() });
    const off = await newBot();
    await saveSchedule(db, off.id, { intervalSeconds: 60, active: false, nextRunAt: null });
    await armSchedule(queues, { botId: off.id, intervalSeconds: 60, startAt: soon() });
    const deletedBotId = `bot_${randomBytes(8).toString('hex')}`;
    await armSchedule(queues, { botId: deletedBotId, intervalSeconds: 60, startAt: soon() });

    expect(await reconcileSchedules({ db, queues, logger })).toEqual({ armed: 2, disarmed: 3, failed: 0 });
    for (const [bot, everyMs] of [
      [missing, 60_000],
      [changed, 300_000],
    ] as const) {
      const armed = await jobScheduler(bot.id);
      expect(armed).toMatchObject({ every: everyMs });
      expect((await findSchedule(db, bot.id))?.nextRunAt?.getTime()).toBe(armed!.next);
    }
    for (const botId of [paused.id, off.id, deletedBotId]) expect(await jobScheduler(botId)).toBeUndefined();
    // A paused bot's schedule stays on, with nothing due until it is resumed.
    expect(await findSchedule(db, paused.id)).toMatchObject({ active: true, nextRunAt: null });

    expect(await reconcileSchedules({ db, queues, logger })).toEqual({ armed: 0, disarmed: 0, failed: 0 });
  });
});

describe('fireScheduleTick', () => {
  it('fires nothing at the pending cap but moves nextRunAt on; the next slot with room fires', async () => {
    const bot = await newBot();
    await saveSchedule(db, bot.id, { intervalSeconds: 60, overlap: 'allow', active: true, nextRunAt: null });
    const slot = new Date(Math.floor(Date.now() / 1000) * 1000);
    const capped = { db, queues, logger, settings: { maxPendingExecutionsPerOrg: 0 } };

    expect(await fireScheduleTick(capped, { botId: bot.id, scheduledFor: slot })).toBe('pending-cap-skipped');
    expect(await db.execution.count({ where: { botId: bot.id } })).toBe(0);
    // No scheduler is armed here, so the next slot is the schedule's own next one.
    expect(await findSchedule(db, bot.id)).toMatchObject({
      lastRunAt: null,
      nextRunAt: new Date(slot.getTime() + 60_000),
    });

    const next = new Date(slot.getTime() + 60_000);
    expect(await fireScheduleTick({ db, queues, logger }, { botId: bot.id, scheduledFor: next })).toBe('fired');
    expect(await db.execution.count({ where: { botId: bot.id, scheduledFor: next, trigger: 'schedule' } })).toBe(1);
    expect(await findSchedule(db, bot.id)).toMatchObject({
      lastRunAt: next,
      nextRunAt: new Date(next.getTime() + 60_000),
    });
  });
});
