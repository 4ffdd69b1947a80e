import type { PrismaClient } from '../client';
import {
  artifactInRow,
  createTestBot,
  createTestExecution,
  createTestOrganization,
  useTestOrganization,
} from '../testing';
import { deleteBot, deleteBotsOfOrganization } from './bots';
import { recordDeliveryAttempt } from './deliveries';
import { cancelExecution, claimExecution, endExecutionAttempt, newArtifactId } from './execution-lifecycle';
import { deleteExpiredExecutions } from './execution-retention';

/*
 * Runs on the shared test database: every call is scoped to this file's organizations, so it can
 * never delete another test file's rows.
 */

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

let db: PrismaClient;
let organizationId: string;

useTestOrganization(
  (client, id) => {
    db = client;
    organizationId = id;
  },
  { poolSize: 4 },
);

/** Moves a run's finish (and creation) back in time, as if it ended that long ago. */
async function age(executionId: string, finishedDaysAgo: number): Promise<void> {
  const at = daysAgo(finishedDaysAgo);
  await db.execution.update({ where: { id: executionId }, data: { createdAt: at, completedAt: at } });
}

/**
 * A run as a worker and the delivery role leave it: step outputs, logs, a screenshot, and a
 * webhook delivery with one attempt, which ends the delivery unless `deliveryPending`.
 */
async function finishedRunWithChildren(botId: string, org = organizationId, deliveryPending = false) {
  const execution = await createTestExecution(db, { botId, organizationId: org });
  const claimed = await claimExecution(db, execution.id);
  const ended = await endExecutionAttempt(db, {
    executionId: execution.id,
    botId,
    attempt: claimed!.attempt,
    outcome: { status: 'completed', data: { price: '9.99' } },
    progress: {
      steps: [{ index: 0, action: 'goto', status: 'completed', data: null, error: null, startedAt: 0, durationMs: 5 }],
      logs: [{ timestamp: Date.now(), level: 'info', source: 'runner', message: 'done' }],
      artifacts: [artifactInRow('screenshot', 'image/png', Buffer.from('png'))],
    },
  });
  const deliveryId = ended.deliveryIds[0]!;
  await recordDeliveryAttempt(db, {
    deliveryId,
    number: 1,
    startedAt: new Date(),
    durationMs: 10,
    statusCode: deliveryPending ? 500 : 200,
    error: null,
    outcome: deliveryPending
      ? { status: 'pending', nextAttemptAt: new Date(Date.now() + 60_000) }
      : { status: 'succeeded' },
  });
  return { executionId: execution.id, deliveryId };
}

async function childCounts(executionId: string, deliveryId: string) {
  const [stepOutputs, logs, artifacts, deliveries, attempts] = await Promise.all([
    db.stepOutput.count({ where: { executionId } }),
    db.executionLog.count({ where: { executionId } }),
    db.artifact.count({ where: { executionId } }),
    db.webhookDelivery.count({ where: { executionId } }),
    db.deliveryAttempt.count({ where: { deliveryId } }),
  ]);
  return { stepOutputs, logs, artifacts, deliveries, attempts };
}

const exists = async (id: string) => (await db.execution.count({ where: { id } })) === 1;

const webhook = { url: 'https://hooks.example/in', auth: 'none' as const };

it('deletes an old finished run with its step outputs, logs, screenshots, deliveries and attempts', async () => {
  const bot = await createTestBot(db, organizationId, { manifest: { webhook } });
  const run = await finishedRunWithChildren(bot.id);
  // Every kind of child exists before, so the zeros after are the cascade's doing.
  expect(await childCounts(run.executionId, run.deliveryId)).toEqual({
    stepOutputs: 1,
    logs: 1,
    artifacts: 1,
    deliveries: 1,
    attempts: 1,
  });
  await age(run.executionId, 40);

  expect((await deleteExpiredExecutions(db, { before: daysAgo(30), organizationId })).deleted).toBe(1);
  expect(await exists(run.executionId)).toBe(false);
  expect(await childCounts(run.executionId, run.deliveryId)).toEqual({
    stepOutputs: 0,
    logs: 0,
    artifacts: 0,
    deliveries: 0,
    attempts: 0,
  });
});

it('keeps recent runs, unfinished old runs and runs whose delivery is still pending', async () => {
  const bot = await createTestBot(db, organizationId, { manifest: { webhook } });
  const recent = await finishedRunWithChildren(bot.id);
  await age(recent.executionId, 10);
  const stillDelivering = await finishedRunWithChildren(bot.id, organizationId, true);
  await age(stillDelivering.executionId, 40);
  // Pending and running rows created long ago: no completedAt, however old.
  const pending = await createTestExecution(db, { botId: bot.id, organizationId });
  const running = await createTestExecution(db, { botId: bot.id, organizationId });
  await claimExecution(db, running.id);
  for (const id of [pending.id, running.id]) {
    await db.execution.update({ where: { id }, data: { createdAt: daysAgo(400), startedAt: daysAgo(400) } });
  }
  // A run that waited a year and was cancelled today is kept: retention counts from the finish.
  const cancelled = await createTestExecution(db, { botId: bot.id, organizationId });
  await db.execution.update({ where: { id: cancelled.id }, data: { createdAt: daysAgo(400) } });
  await cancelExecution(db, organizationId, cancelled.id);

  expect((await deleteExpiredExecutions(db, { before: daysAgo(30), organizationId })).deleted).toBe(0);
  for (const id of [recent.executionId, stillDelivering.executionId, pending.id, running.id, cancelled.id]) {
    expect(await exists(id)).toBe(true);
  }
  expect(await childCounts(recent.executionId, recent.deliveryId)).toMatchObject({ logs: 1, attempts: 1 });
});

it('deletes failed and cancelled runs too, in batches of at most batchSize, oldest first', async () => {
  const bot = await createTestBot(db, organizationId);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const execution = await createTestExecution(db, { botId: bot.id, organizationId });
    if (i % 2 === 0) await cancelExecution(db, organizationId, execution.id);
    else {
      const claimed = await claimExecution(db, execution.id);
      const outcome = { status: 'failed' as const, error: 'boom', stepIndex: null };
      const progress = { steps: [], logs: [], artifacts: [] };
      await endExecutionAttempt(db, {
        executionId: execution.id,
        botId: bot.id,
        attempt: claimed!.attempt,
        outcome,
        progress,
      });
    }
    // i = 0 finished longest ago.
    await age(execution.id, 50 - i);
    ids.push(execution.id);
  }

  const before = daysAgo(30);
  expect((await deleteExpiredExecutions(db, { before, batchSize: 2, organizationId })).deleted).toBe(2);
  expect(await Promise.all(ids.map(exists))).toEqual([false, false, true, true, true]);
  expect((await deleteExpiredExecutions(db, { before, batchSize: 2, organizationId })).deleted).toBe(2);
  expect((await deleteExpiredExecutions(db, { before, batchSize: 2, organizationId })).deleted).toBe(1);
  expect((await deleteExpiredExecutions(db, { before, batchSize: 2, organizationId })).deleted).toBe(0);
  expect(await Promise.all(ids.map(exists))).toEqual([false, false, false, false, false]);
});

it('touches only the organization it is scoped to', async () => {
  const other = (await createTestOrganization(db)).id;
  try {
    const bot = await createTestBot(db, other);
    const execution = await createTestExecution(db, {
      botId: bot.id,
      organizationId: other,
      completed: { extractedData: null },
    });
    await age(execution.id, 40);
    expect((await deleteExpiredExecutions(db, { before: daysAgo(30), organizationId })).deleted).toBe(0);
    expect(await exists(execution.id)).toBe(true);
    expect((await deleteExpiredExecutions(db, { before: daysAgo(30), organizationId: other })).deleted).toBe(1);
  } finally {
    await deleteBotsOfOrganization(db, other);
  }
});

it('lets concurrent callers share the work without deleting a row twice or waiting on each other', async () => {
  const bot = await createTestBot(db, organizationId);
  for (let i = 0; i < 12; i++) {
    const execution = await createTestExecution(db, {
      botId: bot.id,
      organizationId,
      completed: { extractedData: null },
    });
    await age(execution.id, 40);
  }
  const before = daysAgo(30);
  const deleteAll = async () => {
    let total = 0;
    for (;;) {
      const { deleted } = await deleteExpiredExecutions(db, { before, batchSize: 3, organizationId });
      if (deleted === 0) return total;
      total += deleted;
    }
  };
  const totals = await Promise.all([deleteAll(), deleteAll(), deleteAll()]);
  expect(totals.reduce((a, b) => a + b, 0)).toBe(12);
  expect(await db.execution.count({ where: { botId: bot.id } })).toBe(0);
});

/** A finished run with one artifact kept in the row and two in S3 (ARTIFACT_STORE=s3): their keys. */
async function finishedRunWithStoredArtifacts(botId: string): Promise<{ executionId: string; storageKeys: string[] }> {
  const execution = await createTestExecution(db, { botId, organizationId });
  const claimed = await claimExecution(db, execution.id);
  const inBucket = (kind: string) => {
    const id = newArtifactId();
    return { id, kind, contentType: 'application/zip', data: null, storageKey: `${execution.id}/${id}`, bytes: 3 };
  };
  const artifacts = [inBucket('trace'), inBucket('har'), artifactInRow('screenshot', 'image/png', Buffer.from('png'))];
  await endExecutionAttempt(db, {
    executionId: execution.id,
    botId,
    attempt: claimed!.attempt,
    outcome: { status: 'failed', error: 'boom', stepIndex: null },
    progress: { steps: [], logs: [], artifacts },
  });
  return { executionId: execution.id, storageKeys: artifacts.flatMap((a) => (a.storageKey ? [a.storageKey] : [])) };
}

it('answers the S3 keys of the artifacts of the runs it deleted, and only those', async () => {
  const bot = await createTestBot(db, organizationId);
  const old = await finishedRunWithStoredArtifacts(bot.id);
  const recent = await finishedRunWithStoredArtifacts(bot.id);
  await age(old.executionId, 40);

  const result = await deleteExpiredExecutions(db, { before: daysAgo(30), organizationId });
  expect(result.deleted).toBe(1);
  expect(result.storageKeys.sort()).toEqual([...old.storageKeys].sort());
  expect(await db.artifact.count({ where: { executionId: recent.executionId } })).toBe(3);
  expect((await deleteExpiredExecutions(db, { before: daysAgo(30), organizationId })).storageKeys).toEqual([]);
});

it("answers the S3 keys of a deleted bot's artifacts, and null for a bot that is not there", async () => {
  const bot = await createTestBot(db, organizationId);
  const first = await finishedRunWithStoredArtifacts(bot.id);
  const second = await finishedRunWithStoredArtifacts(bot.id);
  const other = await createTestBot(db, organizationId);
  const kept = await finishedRunWithStoredArtifacts(other.id);

  const deleted = await deleteBot(db, organizationId, bot.id);
  expect(deleted?.storageKeys.sort()).toEqual([...first.storageKeys, ...second.storageKeys].sort());
  expect(await exists(first.executionId)).toBe(false);
  expect(await exists(kept.executionId)).toBe(true);
  expect(await deleteBot(db, organizationId, bot.id)).toBeNull();
  // Another organization's bot is not there either.
  expect(await deleteBot(db, (await createTestOrganization(db)).id, other.id)).toBeNull();
  expect(await exists(kept.executionId)).toBe(true);
});
