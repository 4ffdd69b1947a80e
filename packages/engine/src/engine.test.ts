import { AppError, type Logger, redisSettingsFromUrl } from '@botfleet/core';
import {
  findBotForTrigger,
  findExecution,
  updateBot,
  type BotForTrigger,
  type PrismaClient,
  type ProgressBatch,
} from '@botfleet/db';
import { createTestBot, createTestExecution, useTestOrganization } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import {
  cancelChannel,
  closeRedis,
  createQueues,
  createRedisConnection,
  executionRun,
  type Queues,
  type RedisConnection,
} from '@botfleet/queue';
import { deletePrefixedKeys, redisConnected, testRedisUrl, uniqueQueuePrefix, waitUntil } from '@botfleet/testkit';
import {
  cancelBotExecutions,
  cancelExecution,
  claimExecution,
  completeExecution,
  requeueExecution,
  rerunExecution,
  sweepExecutions,
  triggerExecution,
  triggerExecutionBatch,
  triggerScheduledExecution,
  type CancelDeps,
  type EngineDeps,
  type RequeueStep,
} from './index';

/*
 * The engine against the real PostgreSQL and Redis: each command writes its rows, then its jobs,
 * then its notices, and each cap refuses in one place for every caller.
 */

let db: PrismaClient;
let organizationId: string;
useTestOrganization((client, id) => {
  db = client;
  organizationId = id;
});

let redis: RedisConnection;
let subscriber: RedisConnection;
let queues: Queues;
let logger: Logger;
let deps: CancelDeps;

beforeAll(async () => {
  redis = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'producer');
  subscriber = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'worker');
  queues = createQueues(redis, uniqueQueuePrefix());
  await redisConnected(redis);
  logger = createLogger({ level: 'silent' });
  deps = { db, queues, logger, redis };
});
afterAll(async () => {
  await deletePrefixedKeys(redis, queues.prefix);
  await queues.close();
  await closeRedis(subscriber);
  await closeRedis(redis);
});

const noProgress = (): ProgressBatch => ({ steps: [], logs: [], artifacts: [] });
const runJob = (executionId: string) => queues.get(executionRun.queue).getJob(executionId);

async function botToTrigger(fields: Parameters<typeof createTestBot>[2] = {}): Promise<BotForTrigger> {
  const bot = await createTestBot(db, organizationId, fields);
  return (await findBotForTrigger(db, organizationId, bot.id))!;
}

/** Queues whose every enqueue fails, as when Redis refuses the job after the row committed. */
function refusingQueues(): Queues {
  const closed = createQueues(redis, queues.prefix);
  void closed.close();
  return closed;
}

describe('triggers', () => {
  it('write the pending row, then its job (job id = execution id)', async () => {
    const bot = await botToTrigger();
    const { execution, created } = await triggerExecution(deps, {
      organizationId,
      organizationMaxPending: null,
      bot,
      params: {},
    });
    expect(created).toBe(true);
    expect(execution).toMatchObject({ status: 'pending', trigger: 'api' });
    expect((await runJob(execution.id))?.data).toEqual({ executionId: execution.id });

    const rerun = await rerunExecution(deps, { organizationId, organizationMaxPending: null, execution });
    expect(rerun).toMatchObject({ status: 'pending', trigger: 'rerun', rerunOf: execution.id });
    expect(await runJob(rerun.id)).toBeDefined();
  });

  it('succeed when the enqueue fails after the commit: logged, and the sweeper enqueues the row', async () => {
    const bot = await botToTrigger();
    const warn = jest.spyOn(logger, 'warn');
    const refused: EngineDeps = { db, queues: refusingQueues(), logger };
    const { execution } = await triggerExecution(refused, {
      organizationId,
      organizationMaxPending: null,
      bot,
      params: {},
    });
    const batch = await triggerExecutionBatch(refused, {
      organizationId,
      organizationMaxPending: null,
      bot,
      runs: [{}, {}],
    });
    // The second refusal is the same error within the window: folded into the first line's count.
    expect(warn).toHaveBeenCalledTimes(1);
    warn.mockRestore();
    expect(await runJob(execution.id)).toBeUndefined();

    // The sweep takes rows last updated before it starts, as a millisecond Date, while the rows'
    // now() keeps microseconds: a batch written in the sweep's own millisecond would be "not yet
    // stale". Let the clock pass it first (CI saw the batch's two rows skipped).
    await new Promise((resolve) => setTimeout(resolve, 5));
    const swept = await sweepExecutions(deps, { pendingGraceMs: 0, organizationId });
    expect(swept.enqueued).toBeGreaterThanOrEqual(3);
    for (const id of [execution.id, ...batch]) expect(await runJob(id)).toBeDefined();
  });

  it('refuse a paused bot, for a single trigger and a batch alike', async () => {
    const created = await createTestBot(db, organizationId);
    await updateBot(db, organizationId, created.id, { status: 'paused' });
    const bot = (await findBotForTrigger(db, organizationId, created.id))!;
    const input = { organizationId, organizationMaxPending: null, bot };
    await expect(triggerExecution(deps, { ...input, params: {} })).rejects.toMatchObject({ code: 'conflict' });
    await expect(triggerExecutionBatch(deps, { ...input, runs: [{}] })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('apply the organization’s pending cap to API triggers (429) and to schedule slots (skipped)', async () => {
    const bot = await botToTrigger();
    const capped: EngineDeps = { db, queues, logger, settings: { maxPendingExecutionsPerOrg: 1 } };
    const own = { organizationId, bot, params: {} };
    // This file's organization has runs pending already: its own cap of 1_000_000 lets them in...
    await triggerExecution(capped, { ...own, organizationMaxPending: 1_000_000 });
    // ...while the default of 1 refuses the next trigger and fires no scheduled slot.
    const refusal = await triggerExecution(capped, { ...own, organizationMaxPending: null }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AppError);
    expect(refusal).toMatchObject({ code: 'rate_limited', details: { maxPending: 1, retryAfterSeconds: 30 } });

    const slot = { botId: bot.id, organizationId, params: {}, scheduledFor: new Date(), overlap: 'allow' as const };
    expect(await triggerScheduledExecution(capped, slot)).toMatchObject({
      outcome: 'pending-cap-skipped',
      maxPending: 1,
    });
    expect(await db.execution.count({ where: { botId: bot.id, scheduledFor: slot.scheduledFor } })).toBe(0);
  });
});

describe('scheduled slots', () => {
  it('fire once however often the slot is processed, and re-enqueue a lost job', async () => {
    const bot = await botToTrigger();
    const slot = { botId: bot.id, organizationId, params: {}, scheduledFor: new Date(), overlap: 'skip' as const };
    const outcomes = await Promise.all([1, 2, 3].map(() => triggerScheduledExecution(deps, slot)));
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['already-fired', 'already-fired', 'fired']);
    const fired = outcomes.find((o) => o.outcome === 'fired');
    const id = fired && 'execution' in fired ? fired.execution.id : '';
    await queues.get(executionRun.queue).remove(id);
    expect(await triggerScheduledExecution(deps, slot)).toMatchObject({ outcome: 'already-fired' });
    expect(await runJob(id)).toBeDefined();

    // The next slot finds the bot's run unfinished: with overlap `skip` it fires nothing.
    const next = { ...slot, scheduledFor: new Date(slot.scheduledFor.getTime() + 60_000) };
    expect(await triggerScheduledExecution(deps, next)).toEqual({ outcome: 'overlap-skipped' });
  });
});

describe('cancels', () => {
  it('make the row final, drop its job, tell its worker, and answer 409 the second time', async () => {
    const bot = await botToTrigger();
    const { execution } = await triggerExecution(deps, {
      organizationId,
      organizationMaxPending: null,
      bot,
      params: {},
    });
    const heard: string[] = [];
    subscriber.on('message', (_channel: string, id: string) => heard.push(id));
    await subscriber.subscribe(cancelChannel(queues.prefix));

    const cancelled = await cancelExecution(deps, { organizationId, executionId: execution.id });
    expect(cancelled).toMatchObject({ id: execution.id, status: 'cancelled' });
    expect(await runJob(execution.id)).toBeUndefined();
    await waitUntil(() => heard.includes(execution.id), { message: 'the cancel message' });
    await expect(cancelExecution(deps, { organizationId, executionId: execution.id })).rejects.toMatchObject({
      code: 'conflict',
      message: 'Execution is already cancelled',
    });
    await expect(
      cancelExecution(deps, { organizationId: 'org_other', executionId: execution.id }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('cancel only the bot’s runs in the statuses asked for', async () => {
    const bot = await botToTrigger();
    const input = { organizationId, organizationMaxPending: null, bot, runs: [{}, {}, {}] };
    const [running, ...pending] = await triggerExecutionBatch(deps, input);
    expect(await claimExecution(deps, running!)).toMatchObject({ kind: 'claimed' });
    expect(await cancelBotExecutions(deps, { organizationId, botId: bot.id, statuses: ['pending'] })).toBe(2);
    for (const id of pending)
      expect(await findExecution(db, organizationId, id)).toMatchObject({ status: 'cancelled' });
    expect(await findExecution(db, organizationId, running!)).toMatchObject({ status: 'running' });
    expect(await cancelBotExecutions(deps, { organizationId, botId: bot.id, statuses: ['pending', 'running'] })).toBe(
      1,
    );
  });
});

describe('attempts', () => {
  const retryNow: RequeueStep = { kind: 'retryAttempt', ms: 0 };

  async function claimedRun() {
    const bot = await createTestBot(db, organizationId);
    const execution = await createTestExecution(db, { botId: bot.id, organizationId });
    const claim = await claimExecution(deps, execution.id);
    if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
    return { executionId: execution.id, organizationId, botId: bot.id, attempt: claim.run.attempt };
  }

  it('store each typed outcome: a timeout as failed with its error, an empty extract as no data', async () => {
    const timedOut = await claimedRun();
    const error = 'Execution timed out after 1 s';
    expect(await completeExecution(deps, timedOut, { status: 'timed_out', error, stepIndex: 2 }, noProgress())).toEqual(
      { finished: true, next: { kind: 'done' } },
    );
    expect(await findExecution(db, organizationId, timedOut.executionId)).toMatchObject({
      status: 'failed',
      error,
      failedStepIndex: 2,
    });

    const empty = await claimedRun();
    expect(await completeExecution(deps, empty, { status: 'completed', data: {} }, noProgress())).toEqual({
      finished: true,
      next: { kind: 'done' },
    });
    expect(await findExecution(db, organizationId, empty.executionId)).toMatchObject({
      status: 'completed',
      extractedData: null,
    });
  });

  it('write nothing for an attempt that no longer owns the run (a cancel wins)', async () => {
    const run = await claimedRun();
    await cancelExecution(deps, { organizationId, executionId: run.executionId });
    expect(await completeExecution(deps, run, { status: 'cancelled' }, noProgress())).toEqual({
      finished: false,
      next: { kind: 'done' },
    });
    // The job of a bot retry that lost to the cancel ends; a hand-back still hands the job back.
    expect(await requeueExecution(deps, run, retryNow)).toEqual({ kind: 'done' });
    expect(await requeueExecution(deps, run, { kind: 'handBack' })).toEqual({ kind: 'handBack' });
    expect(await findExecution(db, organizationId, run.executionId)).toMatchObject({ status: 'cancelled' });
  });

  it('requeue the owning attempt only, and the next claim is the next attempt', async () => {
    const run = await claimedRun();
    expect(await requeueExecution(deps, { ...run, attempt: run.attempt + 1 }, retryNow)).toEqual({ kind: 'done' });
    expect(await requeueExecution(deps, run, retryNow)).toEqual(retryNow);
    expect(await claimExecution(deps, run.executionId)).toMatchObject({
      kind: 'claimed',
      run: { attempt: run.attempt + 1, infraRetries: 0 },
    });
  });

  it('stop claiming a run whose attempts never finish, past EXECUTION_MAX_INFRA_RETRIES', async () => {
    const run = await claimedRun();
    const strict: EngineDeps = { db, queues, logger, settings: { maxInfraRetries: 1 } };
    // Still running when claimed again: its worker died. One retry is allowed, the second is not.
    expect(await claimExecution(strict, run.executionId)).toMatchObject({ kind: 'claimed', infraRetriesLeft: 0 });
    const exhausted = await claimExecution(strict, run.executionId);
    expect(exhausted).toMatchObject({
      kind: 'infra-retries-exhausted',
      outcome: {
        status: 'failed',
        error: expect.stringMatching(/^infrastructure_failure: .*EXECUTION_MAX_INFRA_RETRIES=1/),
      },
    });
  });

  it('are claimed under the running cap', async () => {
    const capped: EngineDeps = { db, queues, logger, settings: { maxRunningExecutionsPerOrg: 1 } };
    await claimedRun(); // this organization now has runs going
    const bot = await createTestBot(db, organizationId);
    const execution = await createTestExecution(db, { botId: bot.id, organizationId });
    expect(await claimExecution(capped, execution.id)).toEqual({
      kind: 'at-capacity',
      next: { kind: 'delay', ms: 1_000 },
    });
    expect(await findExecution(db, organizationId, execution.id)).toMatchObject({ status: 'pending' });
  });
});
