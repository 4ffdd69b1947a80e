import { redisSettingsFromUrl } from '@botfleet/core';
import {
  deleteBotsOfOrganization,
  findSchedule,
  listExecutions,
  saveSchedule,
  updateBot,
  type PrismaClient,
} from '@botfleet/db';
import { createTestBot, createTestOrganization, createTestPrismaClient } from '@botfleet/db/testing';
import type { TickOutcome } from '@botfleet/engine';
import { createLogger } from '@botfleet/io';
import {
  armSchedule,
  createQueues,
  closeRedis,
  createRedisConnection,
  executionRun,
  processorFor,
  scheduleTick,
  schedulerIdOf,
  type ConsumedResult,
  type Queues,
  type RedisConnection,
} from '@botfleet/queue';
import { deletePrefixedKeys, redisConnected, testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import { UnrecoverableError, type Job } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { createScheduleTickProcessor } from './schedule-tick.processor';

/*
 * The tick processor called directly with the job a scheduler would receive, to pin down what
 * happens when the same slot is processed twice (two processes, a retry, a stalled job). It is
 * wrapped as the scheduler's consumer wraps it, so the payload is parsed as in production.
 */

let db: PrismaClient;
let redis: RedisConnection;
let queues: Queues;
let organizationId: string;
let processTick: (job: Job<unknown>) => Promise<ConsumedResult<TickOutcome>>;

beforeAll(async () => {
  db = createTestPrismaClient({ poolSize: 4 });
  redis = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'producer');
  queues = createQueues(redis, uniqueQueuePrefix());
  await redisConnected(redis);
  organizationId = (await createTestOrganization(db)).id;
  const logger = createLogger({ level: 'silent' });
  processTick = processorFor(scheduleTick, createScheduleTickProcessor({ db, queues, logger }), logger);
});
afterAll(async () => {
  // The organization is this file's own, so its bots are exactly the ones created here.
  await deleteBotsOfOrganization(db, organizationId);
  await deletePrefixedKeys(redis, queues.prefix);
  await queues.close();
  await closeRedis(redis);
  await db.$disconnect();
});

async function scheduledBot(options: { status?: 'active' | 'paused'; active?: boolean } = {}) {
  const bot = await createTestBot(db, organizationId, { name: 'tick' });
  if (options.status && !(await updateBot(db, organizationId, bot.id, { status: options.status })))
    throw new Error(`bot ${bot.id} not found`);
  await saveSchedule(db, bot.id, { intervalSeconds: 60, active: options.active ?? true, nextRunAt: null });
  return bot.id;
}

/** A job as BullMQ hands it to the worker: consume reads its id, data and options. */
const jobOf = (id: string, data: unknown) => ({ id, data, opts: {} }) as Job;
/** The job BullMQ hands the worker for one slot of the bot's job scheduler. */
const tickJob = (botId: string, slot: number, data: unknown = { botId }) =>
  jobOf(`repeat:${schedulerIdOf(botId)}:${slot}`, data);
/** Every execution of the bot. */
const executionsOf = async (botId: string) => {
  const page = await listExecutions(db, botId, { limit: 1_000 });
  if (page.nextCursor !== null) throw new Error(`bot ${botId} has more executions than one page`);
  return page.items;
};

it('the same slot processed concurrently creates one execution and one execution.run job', async () => {
  const botId = await scheduledBot();
  const slot = Date.now();
  const outcomes = await Promise.all([
    processTick(tickJob(botId, slot)),
    processTick(tickJob(botId, slot)),
    processTick(tickJob(botId, slot)),
  ]);
  expect(outcomes.sort()).toEqual(['already-fired', 'already-fired', 'fired']);

  const rows = await executionsOf(botId);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ trigger: 'schedule', status: 'pending', scheduledFor: new Date(slot) });
  const runJobs = (await queues.get(executionRun.queue).getJobs(['waiting', 'prioritized'])).filter(
    (j) => j.data.executionId === rows[0]!.id,
  );
  expect(runJobs).toHaveLength(1);
  expect(runJobs[0]!.id).toBe(rows[0]!.id);
  expect(await findSchedule(db, botId)).toMatchObject({
    lastRunAt: new Date(slot),
    nextRunAt: new Date(slot + 60_000),
  });
});

it('a repeated tick re-enqueues a pending execution whose job was lost', async () => {
  const botId = await scheduledBot();
  const slot = Date.now();
  await processTick(tickJob(botId, slot));
  const [row] = await executionsOf(botId);
  await queues.get(executionRun.queue).remove(row!.id);
  expect(await processTick(tickJob(botId, slot))).toBe('already-fired');
  expect(await queues.get(executionRun.queue).getJob(row!.id)).toMatchObject({
    name: 'execution.run',
    data: { executionId: row!.id },
  });
});

it.each([
  ['the bot is paused', { status: 'paused' as const }],
  ['the schedule is inactive', { active: false }],
])('fires nothing and disarms when %s', async (_case, options) => {
  const botId = await scheduledBot(options);
  await armSchedule(queues, { botId, intervalSeconds: 60, startAt: new Date(Date.now() + 60_000) });
  expect(await processTick(tickJob(botId, Date.now()))).toBe('skipped');
  expect(await executionsOf(botId)).toEqual([]);
  expect(await queues.get(scheduleTick.queue).getJobScheduler(schedulerIdOf(botId))).toBeUndefined();
  expect(await findSchedule(db, botId)).toMatchObject({ nextRunAt: null });
});

it('fires nothing and disarms for a deleted bot', async () => {
  const botId = `bot_${randomBytes(8).toString('hex')}`;
  await armSchedule(queues, { botId, intervalSeconds: 60, startAt: new Date(Date.now() + 60_000) });
  expect(await processTick(tickJob(botId, Date.now()))).toBe('skipped');
  expect(await queues.get(scheduleTick.queue).getJobScheduler(schedulerIdOf(botId))).toBeUndefined();
});

it('refuses ticks it cannot attribute to a slot of the bot’s scheduler, without retries', async () => {
  const botId = await scheduledBot();
  await expect(processTick(tickJob(botId, Date.now(), { nope: true }))).rejects.toBeInstanceOf(UnrecoverableError);
  await expect(processTick(jobOf('manual-1', { botId }))).rejects.toBeInstanceOf(UnrecoverableError);
  await expect(processTick(jobOf(`repeat:bot-other:${Date.now()}`, { botId }))).rejects.toBeInstanceOf(
    UnrecoverableError,
  );
  expect(await executionsOf(botId)).toEqual([]);
});
