import { redisSettingsFromUrl } from '@botfleet/core';
import { findStoredManifest, type PrismaClient } from '@botfleet/db';
import {
  createCompletedExecutionWithDelivery,
  createTestBot,
  createTestExecution,
  findDelivery,
  useTestOrganization,
} from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import {
  closeRedis,
  createQueues,
  createRedisConnection,
  removeJob,
  webhookDeliver,
  type Queues,
  type RedisConnection,
} from '@botfleet/queue';
import { deletePrefixedKeys, redisConnected, testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import type { DeliveryAnswer } from './delivery-policy';
import {
  claimDeliveryAttempts,
  claimExecution,
  completeExecution,
  postponeDeliveryAttempt,
  recordDeliveryAttempts,
  redeliverDelivery,
  sweepDeliveries,
  type DeliveryDeps,
  type SentDeliveryAttempt,
} from './index';

/*
 * The delivery commands against the real PostgreSQL and Redis: each claim, postponement and record
 * writes the row, enqueues the next attempt's job only after the write, moves the webhook's health
 * on, and answers the job's next step. What each answer makes of a delivery is decided (and tested
 * row by row) in delivery-policy.ts.
 */

let db: PrismaClient;
let organizationId: string;
useTestOrganization((client, id) => {
  db = client;
  organizationId = id;
});

let redis: RedisConnection;
let queues: Queues;
let deps: DeliveryDeps;

beforeAll(async () => {
  redis = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'producer');
  queues = createQueues(redis, uniqueQueuePrefix());
  await redisConnected(redis);
  const deliveryPolicy = { timeoutMs: 2_000, retryDelaysMs: [60_000] };
  deps = { db, queues, logger: createLogger({ level: 'silent' }), deliveryPolicy };
});
afterAll(async () => {
  await deletePrefixedKeys(redis, queues.prefix);
  await queues.close();
  await closeRedis(redis);
});

const manifest = { webhook: { url: 'https://hooks.example/in', auth: 'none' as const } };
const DONE = { kind: 'done' };

async function deliveryOfCompletedRun() {
  const bot = await createTestBot(db, organizationId, { manifest });
  const execution = await createTestExecution(db, { botId: bot.id, organizationId });
  const claim = await claimExecution(deps, execution.id);
  if (claim.kind !== 'claimed') throw new Error('not claimed');
  const attempt = { executionId: execution.id, organizationId, botId: bot.id, attempt: claim.run.attempt };
  await completeExecution(
    deps,
    attempt,
    { status: 'completed', data: { price: '9.99' } },
    { steps: [], logs: [], artifacts: [] },
  );
  const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { executionId: execution.id } });
  return { id: delivery.id, botId: bot.id };
}

/** A pending delivery, due now, of a new bot with a webhook (as a completion leaves it). */
async function pendingDelivery(): Promise<{ id: string; botId: string }> {
  const bot = await createTestBot(db, organizationId, { manifest });
  const { deliveryId } = await createCompletedExecutionWithDelivery(db, {
    botId: bot.id,
    organizationId,
    extractedData: { n: 1 },
  });
  if (!deliveryId) throw new Error('no delivery created');
  return { id: deliveryId, botId: bot.id };
}

const deliverJob = (deliveryId: string, attempt: number) =>
  queues.get(webhookDeliver.queue).getJob(webhookDeliver.jobIdOf({ deliveryId }, { attempt }));

const answerOf = (statusCode: number): DeliveryAnswer => ({
  ok: statusCode >= 200 && statusCode < 300,
  statusCode,
  error: statusCode >= 200 && statusCode < 300 ? null : `receiver answered HTTP ${statusCode}`,
  durationMs: 5,
  retryAfterMs: null,
});

/** Claims the delivery's next attempt (due now) and says the receiver answered `statusCode`. */
async function sentAttempt(deliveryId: string, statusCode: number): Promise<SentDeliveryAttempt> {
  await db.webhookDelivery.update({ where: { id: deliveryId }, data: { nextAttemptAt: new Date() } });
  const [claim] = await claimDeliveryAttempts(deps, [deliveryId]);
  if (!claim?.delivery) throw new Error('not claimed');
  return { delivery: claim.delivery, startedAt: new Date(), answer: answerOf(statusCode) };
}

it('are enqueued by the completion, and each retry only after its attempt is recorded', async () => {
  const delivery = await deliveryOfCompletedRun();
  expect(await deliverJob(delivery.id, 1)).toBeDefined();
  const first = await sentAttempt(delivery.id, 500);
  expect(await recordDeliveryAttempts(deps, [first])).toEqual([
    { recorded: true, outcome: 'retry', disabled: null, next: DONE },
  ]);
  expect(await deliverJob(delivery.id, 2)).toBeDefined();
  // The same attempt recorded twice (a duplicate job) writes and enqueues nothing.
  expect(await recordDeliveryAttempts(deps, [first])).toEqual([{ recorded: false, next: DONE }]);
  // The series (one retry) is used up: the delivery fails, and no third attempt is enqueued.
  const second = await sentAttempt(delivery.id, 500);
  expect(await recordDeliveryAttempts(deps, [second])).toEqual([
    { recorded: true, outcome: 'failed', disabled: null, next: DONE },
  ]);
  expect(await findDelivery(db, delivery.id)).toMatchObject({ status: 'failed', attemptCount: 2 });
  expect(await deliverJob(delivery.id, 3)).toBeUndefined();
});

it('are redelivered once finished, never while pending', async () => {
  const delivery = await deliveryOfCompletedRun();
  const input = { organizationId, delivery };
  await expect(redeliverDelivery(deps, input)).rejects.toMatchObject({ code: 'conflict' });
  await recordDeliveryAttempts(deps, [await sentAttempt(delivery.id, 200)]);
  expect(await redeliverDelivery(deps, input)).toMatchObject({ id: delivery.id, status: 'pending' });
  expect(await deliverJob(delivery.id, 2)).toBeDefined();
});

it('whose job was lost are enqueued again by the sweeper', async () => {
  const delivery = await deliveryOfCompletedRun();
  await removeJob(queues, webhookDeliver, webhookDeliver.jobIdOf({ deliveryId: delivery.id }, { attempt: 1 }));
  expect(await findDelivery(db, delivery.id)).toMatchObject({ status: 'pending' });
  expect(await sweepDeliveries(deps, { graceMs: 0, organizationId })).toBeGreaterThanOrEqual(1);
  expect(await deliverJob(delivery.id, 1)).toBeDefined();
});

it('are claimed once per batch: a second job of the same delivery sends nothing, and its job ends', async () => {
  const delivery = await pendingDelivery();
  const [first, second] = await claimDeliveryAttempts(deps, [delivery.id, delivery.id]);
  expect(first).toMatchObject({ delivery: { id: delivery.id, attemptCount: 0 } });
  expect(second).toEqual({ delivery: null, next: DONE });
  // Leased now: another claim finds it not due.
  expect(await claimDeliveryAttempts(deps, [delivery.id])).toEqual([{ delivery: null, next: DONE }]);
});

it('of a webhook disabled since they were created are ended at the claim, unsent', async () => {
  const delivery = await pendingDelivery();
  await db.manifest.update({ where: { botId: delivery.botId }, data: { webhookDisabledAt: new Date() } });
  expect(await claimDeliveryAttempts(deps, [delivery.id])).toEqual([{ delivery: null, next: DONE }]);
  expect(await findDelivery(db, delivery.id)).toMatchObject({
    status: 'failed',
    attemptCount: 0,
    lastError: 'webhook disabled',
  });
});

it('to a busy destination are given back due as they were, and their job asks again after the re-check', async () => {
  const delivery = await pendingDelivery();
  const dueAt = (await findDelivery(db, delivery.id))!.nextAttemptAt;
  const [claim] = await claimDeliveryAttempts(deps, [delivery.id]);
  expect(await postponeDeliveryAttempt(deps, claim!.delivery!)).toEqual({ kind: 'delay', ms: 250 });
  expect(await findDelivery(db, delivery.id)).toMatchObject({
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: dueAt,
  });
  expect(await claimDeliveryAttempts(deps, [delivery.id])).toEqual([
    { delivery: expect.objectContaining({ id: delivery.id }) },
  ]);
});

it('record one of two attempts of the same delivery in a batch (a lost lease), and discard the other', async () => {
  const delivery = await pendingDelivery();
  const sent = await sentAttempt(delivery.id, 200);
  expect(await recordDeliveryAttempts(deps, [sent, { ...sent, answer: answerOf(500) }])).toEqual([
    { recorded: true, outcome: 'delivered', disabled: null, next: DONE },
    { recorded: false, next: DONE },
  ]);
  expect(await findDelivery(db, delivery.id)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
});

it('move the webhook’s health on: a failure notes a streak, a success ends it, a 410 disables the webhook', async () => {
  const delivery = await pendingDelivery();
  await recordDeliveryAttempts(deps, [await sentAttempt(delivery.id, 500)]);
  expect((await findStoredManifest(db, delivery.botId))!.webhookFailingSince).toBeInstanceOf(Date);
  await recordDeliveryAttempts(deps, [await sentAttempt(delivery.id, 200)]);
  expect((await findStoredManifest(db, delivery.botId))!.webhookFailingSince).toBeNull();

  const gone = await pendingDelivery();
  const other = await createCompletedExecutionWithDelivery(db, { botId: gone.botId, organizationId, extractedData: 2 });
  expect(await recordDeliveryAttempts(deps, [await sentAttempt(gone.id, 410)])).toEqual([
    {
      recorded: true,
      outcome: 'failed',
      disabled: { reason: 'gone', message: 'the receiver answered 410 Gone' },
      next: DONE,
    },
  ]);
  expect(await findStoredManifest(db, gone.botId)).toMatchObject({
    webhookDisabledAt: expect.any(Date),
    webhookDisabledReason: 'the receiver answered 410 Gone',
  });
  // Its other pending delivery is failed with it.
  expect(await findDelivery(db, other.deliveryId!)).toMatchObject({
    status: 'failed',
    lastError: 'webhook disabled: the receiver answered 410 Gone',
  });
});
