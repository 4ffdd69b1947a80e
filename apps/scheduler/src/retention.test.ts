import { redisSettingsFromUrl } from '@botfleet/core';
import { createArtifactStore, type ArtifactStore } from '@botfleet/artifacts';
import { createPrismaClient, type PrismaClient } from '@botfleet/db';
import {
  createTestBot,
  createTestDatabase,
  createTestExecution,
  createTestOrganization,
  seedProgress,
  type TestDatabase,
} from '@botfleet/db/testing';
import { closeRedis, createRedisConnection } from '@botfleet/queue';
import {
  deletePrefixedKeys,
  startS3TestServer,
  testRedisUrl,
  uniqueQueuePrefix,
  waitUntil,
  type S3TestServer,
} from '@botfleet/testkit';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startScheduler, type SchedulerOptions } from './start-scheduler';

/*
 * The retention pass as the scheduler role runs it, on real PostgreSQL and Redis. A database of
 * this file's own: a scheduler arms every schedule in its database, and retention here runs
 * unscoped, as in production, so on the shared database it would reach other test files' rows.
 */

const DAY_MS = 86_400_000;
const REDIS = redisSettingsFromUrl(testRedisUrl());
const prefix = uniqueQueuePrefix('test-retention');

let testDb: TestDatabase;
let db: PrismaClient;
let organizationId: string;
let botId: string;
const lines: { level: number; msg: string; deleted?: number }[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  }),
);

beforeAll(async () => {
  testDb = await createTestDatabase({ migrated: true });
  db = createPrismaClient(testDb.url, { poolSize: 4 });
  organizationId = (await createTestOrganization(db)).id;
  botId = (await createTestBot(db, organizationId)).id;
});
afterAll(async () => {
  const redis = createRedisConnection(REDIS, 'worker');
  await deletePrefixedKeys(redis, prefix);
  await closeRedis(redis);
  await db.$disconnect();
  await testDb.drop();
});

const start = (options: Partial<SchedulerOptions>) =>
  startScheduler({ db, redis: REDIS, queuePrefix: prefix, logger, drainTimeoutMs: 5_000, ...options });

async function completedDaysAgo(days: number): Promise<string> {
  const { id } = await createTestExecution(db, { botId, organizationId, completed: { extractedData: { n: 1 } } });
  const at = new Date(Date.now() - days * DAY_MS);
  await db.execution.update({ where: { id }, data: { createdAt: at, completedAt: at } });
  await db.executionLog.create({
    data: { executionId: id, timestamp: at, level: 'info', source: 'runner', message: 'done' },
  });
  return id;
}

const exists = async (id: string) => (await db.execution.count({ where: { id } })) === 1;

it('deletes nothing when retention is off', async () => {
  const old = await completedDaysAgo(400);
  const scheduler = await start({ retentionIntervalMs: 100 });
  try {
    await scheduler.deleteExpiredNow();
    expect(await exists(old)).toBe(true);
  } finally {
    await scheduler.stop();
  }
  await db.execution.delete({ where: { id: old } });
});

it('deletes old finished executions every interval, keeping recent and unfinished ones, and logs how many', async () => {
  const scheduler = await start({ executionRetentionDays: 30, retentionIntervalMs: 200 });
  try {
    // Written after start, so a later periodic pass (not the one at start) has to find them.
    const old = await completedDaysAgo(31);
    const recent = await completedDaysAgo(29);
    const pending = await createTestExecution(db, { botId, organizationId });
    await db.execution.update({ where: { id: pending.id }, data: { createdAt: new Date(Date.now() - 400 * DAY_MS) } });

    await waitUntil(async () => !(await exists(old)), { timeoutMs: 10_000, message: 'the old execution deleted' });
    expect(await db.executionLog.count({ where: { executionId: old } })).toBe(0);
    expect(await exists(recent)).toBe(true);
    expect(await exists(pending.id)).toBe(true);
    expect(lines).toContainEqual(expect.objectContaining({ level: 30, msg: 'expired executions deleted', deleted: 1 }));
  } finally {
    await scheduler.stop();
  }
});

describe('with ARTIFACT_STORE=s3', () => {
  let s3: S3TestServer;
  let store: ArtifactStore;
  beforeAll(async () => {
    s3 = await startS3TestServer();
    store = createArtifactStore(s3.storeSettings);
  }, 30_000);
  afterAll(async () => {
    await store?.close();
    await s3?.close();
  });

  /** Puts content through the store and writes its row, as a worker's run does. */
  async function storedArtifact(executionId: string, content: string) {
    const artifactId = `art_${executionId}_${content}`;
    const placed = await store.put({ executionId, artifactId, contentType: 'text/plain' }, Buffer.from(content));
    await seedProgress(db, executionId, {
      steps: [],
      logs: [],
      artifacts: [{ id: artifactId, kind: 'trace', contentType: 'text/plain', ...placed }],
    });
    return placed;
  }

  it("removes the expired runs' objects from the bucket with their rows, and keeps the others'", async () => {
    const old = await completedDaysAgo(31);
    const recent = await completedDaysAgo(29);
    const gone = [await storedArtifact(old, 'trace'), await storedArtifact(old, 'har')];
    const kept = await storedArtifact(recent, 'trace');

    const scheduler = await start({ executionRetentionDays: 30, retentionIntervalMs: 600_000, artifactStore: store });
    try {
      await scheduler.deleteExpiredNow();
    } finally {
      await scheduler.stop();
    }
    expect(await exists(old)).toBe(false);
    for (const placed of gone) await expect(store.open(placed)).rejects.toThrow('NoSuchKey');
    expect(await exists(recent)).toBe(true);
    const body = await store.open(kept);
    expect(Buffer.concat(await body.toArray()).toString()).toBe('trace');
  });
});
