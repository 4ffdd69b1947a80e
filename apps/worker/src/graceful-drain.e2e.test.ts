import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { redisSettingsFromUrl } from '@botfleet/core';
import { findExecution, listExecutionLogs } from '@botfleet/db';
import { createLogger } from '@botfleet/io';
import { startFixtureServer, testRedisUrl, waitUntil, type FixtureServer } from '@botfleet/testkit';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import request from 'supertest';
import { startWorker } from './start-worker';

/*
 * A deploy under load: SIGTERM reaches a worker with runs in flight. Runs that can finish within
 * the drain deadline finish; the one that cannot goes back to the queue and completes on the next
 * worker; none fails. The lock lasts 120 s, so a run recovered through BullMQ's stalled check
 * (i.e. abandoned, not handed back) would not finish within this test's deadlines.
 *
 * Nothing here depends on how fast the machine is: the slow bot's page does not answer until the
 * test opens the gate (after the drain), so that run cannot finish within any drain; the quick
 * one has a drain deadline far longer than its few hundred milliseconds of work, even on a
 * loaded machine.
 */
const DRAIN_MS = 15_000;
const LOCK_MS = 120_000;
let site: FixtureServer;
let openSlowPage!: () => void;
const slowPageGate = new Promise<void>((resolve) => (openSlowPage = resolve));
let h: ApiHarness;
let org: TestOrg;
const children: ChildProcess[] = [];

beforeAll(async () => {
  const page = '<!doctype html><body><h1 id="title">Deployed</h1></body>';
  site = await startFixtureServer({
    '/page': page,
    '/slow-page': async (_req, res) => {
      await slowPageGate;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    },
  });
  h = await createApiHarness();
  org = await h.newOrg();
});
afterAll(async () => {
  openSlowPage();
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await h.close();
  await site.close();
});

function spawnWorker(): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'testing/worker-process.ts')], {
    env: {
      ...process.env,
      QUEUE_PREFIX: h.queues.prefix,
      SWEEP_ORGANIZATION_ID: org.id,
      CONCURRENCY: '2',
      LOCK_DURATION_MS: String(LOCK_MS),
      DRAIN_TIMEOUT_MS: String(DRAIN_MS),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`worker exited early (${code})`)));
  });
}

async function newBot(name: string, path: string): Promise<string> {
  const steps = [
    { action: 'waitFor', ms: 300 },
    { action: 'extract', name: 'title', selector: '#title' },
  ];
  return h.newBot(org, { name, targetUrl: site.url(path) }, { steps });
}

async function trigger(botId: string): Promise<string> {
  const res = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
  expect(res.status).toBe(202);
  return res.body.executionId as string;
}

const row = async (executionId: string) => (await findExecution(h.db, org.id, executionId))!;

it('finishes or hands back every run in flight on SIGTERM, and fails none', async () => {
  const [quick, slow] = await Promise.all([newBot('quick', '/page'), newBot('slow', '/slow-page')]);
  const worker = await spawnWorker();
  // Two run at once (concurrency 2); the other two wait in the queue behind them.
  const first = await trigger(quick);
  const long = await trigger(slow);
  const queued = [await trigger(quick), await trigger(slow)];
  await waitUntil(async () => (await row(first)).status === 'running' && (await row(long)).status === 'running', {
    timeoutMs: 60_000,
    message: 'the first two runs never started',
  });

  const exit = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
  const stopping = Date.now();
  worker.kill('SIGTERM');
  expect(await exit).toBe(0);
  // The drain deadline, the hand-back and closing Chromium, however slow; far less than the lock.
  expect(Date.now() - stopping).toBeLessThan(LOCK_MS);
  expect(await row(first)).toMatchObject({ status: 'completed', attempt: 1 });
  // Handed back as pending: an orderly hand-over, not an infrastructure retry.
  expect(await row(long)).toMatchObject({ status: 'pending', attempt: 1, infraRetries: 0 });
  for (const id of queued) expect((await row(id)).status).toBe('pending');
  openSlowPage();

  const next = await startWorker({
    db: h.db,
    redis: redisSettingsFromUrl(testRedisUrl()),
    queuePrefix: h.queues.prefix,
    logger: createLogger({ level: 'silent' }),
    concurrency: 3,
    proxyUrls: [],
    defaultTimeoutSeconds: 60,
    sweepIntervalMs: 60_000,
    sweepOrganizationId: org.id,
  });
  try {
    const all = [first, long, ...queued];
    await waitUntil(
      async () => {
        const rows = await Promise.all(all.map(row));
        return rows.every((r) => ['completed', 'failed', 'cancelled'].includes(r.status)) && rows;
      },
      { timeoutMs: 90_000, message: 'not every run finished after the restart' },
    );
    for (const id of all)
      expect(await row(id)).toMatchObject({ status: 'completed', extractedData: { title: 'Deployed' } });
    expect(await row(long)).toMatchObject({ attempt: 2, infraRetries: 0 });
    const logs = (await listExecutionLogs(h.db, long)).map((l) => l.message);
    expect(logs).toEqual(
      expect.arrayContaining([
        expect.stringContaining('goes back to the queue'),
        expect.stringContaining('Attempt 2 started'),
      ]),
    );
  } finally {
    await next.stop();
  }
}, 300_000);
