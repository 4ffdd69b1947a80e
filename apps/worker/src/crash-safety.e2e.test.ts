import { createApiHarness } from '@botfleet/api/testing';
import { redisSettingsFromUrl } from '@botfleet/core';
import { findExecution, listExecutionLogs, listStepOutputs, type Db } from '@botfleet/db';
import { createLogger } from '@botfleet/io';
import {
  listProcesses,
  processTree,
  startFixtureServer,
  testRedisUrl,
  uniqueQueuePrefix,
  waitUntil,
  type FixtureServer,
} from '@botfleet/testkit';
import request from 'supertest';
import { startWorker } from './start-worker';
import { killWorkerProcess, spawnWorkerProcess } from './testing';

let site: FixtureServer;
const afterAllCleanups: (() => unknown)[] = [];
const logger = createLogger({ level: 'silent' });
const redis = redisSettingsFromUrl(testRedisUrl());

beforeAll(async () => {
  site = await startFixtureServer({ '/page': '<!doctype html><body><h1 id="title">Still here</h1></body>' });
});
afterAll(async () => {
  for (const cleanup of afterAllCleanups) cleanup();
  await site.close();
});

async function executionRow(db: Db, organizationId: string, executionId: string) {
  const row = await findExecution(db, organizationId, executionId);
  if (!row) throw new Error(`execution ${executionId} not found`);
  return row;
}

it('finishes an execution whose worker was SIGKILLed mid-run, and leaves no Chromium behind', async () => {
  const h = await createApiHarness();
  const org = await h.newOrg();
  const botId = await h.newBot(
    org,
    { name: 'crash', targetUrl: site.url('/page') },
    {
      steps: [
        { action: 'waitFor', ms: 4_000 },
        { action: 'extract', name: 'title', selector: '#title' },
      ],
    },
  );

  const doomed = await spawnWorkerProcess(h.queues.prefix, org.id);
  const cleanup = () => killWorkerProcess(doomed);
  afterAllCleanups.push(cleanup);
  const trigger = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
  const { executionId } = trigger.body;
  const status = async () => (await executionRow(h.db, org.id, executionId)).status;
  await waitUntil(async () => (await status()) === 'running', { timeoutMs: 20_000, message: 'never started running' });
  await waitUntil(() => processTree(doomed.pid!).some((p) => /chrom/i.test(p.command)), {
    timeoutMs: 10_000,
    message: 'no chromium under the worker',
  });
  const browserPids = processTree(doomed.pid!)
    .filter((p) => p.pid !== doomed.pid)
    .map((p) => p.pid);
  doomed.kill('SIGKILL');

  // A live worker's stalled check hands the job on once the dead worker's lock expires.
  const survivor = await startWorker({
    db: h.db,
    redis,
    queuePrefix: h.queues.prefix,
    logger,
    concurrency: 1,
    proxyUrls: [],
    defaultTimeoutSeconds: 60,
    stalledIntervalMs: 1_000,
    sweepIntervalMs: 60_000,
    sweepOrganizationId: org.id,
  });
  try {
    await waitUntil(async () => ['completed', 'failed', 'cancelled'].includes(await status()), {
      timeoutMs: 40_000,
      message: 'execution never reached a final state',
    });
    const execution = await executionRow(h.db, org.id, executionId);
    expect(execution).toMatchObject({
      status: 'completed',
      attempt: 2,
      infraRetries: 1,
      extractedData: { title: 'Still here' },
    });
    const logs = await listExecutionLogs(h.db, executionId);
    expect(logs.map((l) => l.message)).toEqual(expect.arrayContaining([expect.stringContaining('Attempt 2 started')]));
    const steps = await listStepOutputs(h.db, executionId);
    expect(steps.map((s) => s.status)).toEqual(['completed', 'completed']);

    // Chromium notices its parent is gone (its pipe closes) and exits: nothing lingers.
    await waitUntil(
      () => {
        const alive = new Set(
          listProcesses()
            .filter((p) => p.state !== 'Z')
            .map((p) => p.pid),
        );
        return browserPids.every((pid) => !alive.has(pid));
      },
      { timeoutMs: 15_000, message: 'chromium processes of the killed worker are still alive' },
    );
  } finally {
    await survivor.stop();
    await h.close();
  }
}, 90_000);

it('runs a trigger whose enqueue failed, once the sweeper finds the pending row', async () => {
  const prefix = uniqueQueuePrefix('test-enqueue');
  // The API's Redis is unreachable: the trigger still succeeds because the row is written first.
  const h = await createApiHarness({}, { redis: redisSettingsFromUrl('redis://127.0.0.1:1'), queuePrefix: prefix });
  const org = await h.newOrg();
  const steps = [{ action: 'extract', name: 'title', selector: '#title' }];
  const botId = await h.newBot(org, { name: 'offline', targetUrl: site.url('/page') }, { steps });
  const trigger = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
  expect(trigger.status).toBe(202);
  const { executionId } = trigger.body;
  expect((await request(h.app).get('/readyz')).status).toBe(503);

  const worker = await startWorker({
    db: h.db,
    redis,
    queuePrefix: prefix,
    logger,
    concurrency: 1,
    proxyUrls: [],
    defaultTimeoutSeconds: 30,
    sweepIntervalMs: 500,
    pendingGraceMs: 0,
    // Other suites' running rows share this database but not this queue prefix.
    sweepOrganizationId: org.id,
  });
  try {
    await waitUntil(async () => (await executionRow(h.db, org.id, executionId)).status === 'completed', {
      timeoutMs: 30_000,
      message: 'the pending execution was never picked up',
    });
    expect((await executionRow(h.db, org.id, executionId)).extractedData).toEqual({ title: 'Still here' });
  } finally {
    await worker.stop();
    await h.close();
  }
}, 60_000);
