import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { redisSettingsFromUrl } from '@botfleet/core';
import { findExecution, listArtifacts, listExecutionLogs, listStepOutputs } from '@botfleet/db';
import { createLogger } from '@botfleet/io';
import { startFixtureServer, testRedisUrl, waitUntil, type FixtureServer } from '@botfleet/testkit';
import type { ChildProcess } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import request from 'supertest';
import { startWorker } from './start-worker';
import { killWorkerProcess, spawnWorkerProcess } from './testing';

/*
 * A worker that stops answering past its job's lock (a long GC pause, a host cut off from Redis
 * with PostgreSQL still reachable: SIGSTOP looks the same to the others) loses the run to another
 * worker as attempt 2. Thawed, it must write nothing more into the run and stop its browser: the
 * run's outputs are attempt 2's alone (docs/runs.md).
 *
 * Nothing here depends on speed: the run's page waits on a gate the test opens. Each page opened
 * on the site long-polls `/gate` with an id of its own, so the test tells the frozen worker's page
 * from the newer attempt's, and sees the frozen one's request dropped when its context closes.
 */
/** The frozen worker's lock: it runs out soon after the freeze. */
const FROZEN_LOCK_MS = 5_000;
/** The other worker's: long, so a busy machine's pauses cannot cost it the run in turn. */
const SURVIVOR_LOCK_MS = 60_000;
const PAGE = `<!doctype html><body><h1 id="title">Gated</h1><script>
  fetch('/gate?page=' + Math.random().toString(36).slice(2)).then((r) => r.text()).then(() => {
    const released = document.createElement('p');
    released.id = 'released';
    released.textContent = 'released';
    document.body.append(released);
  });
</script></body>`;

/** A page's pending `/gate` request: answered when the test opens the gate, or dropped by the browser. */
interface GateRequest {
  page: string;
  res: ServerResponse;
  dropped: boolean;
}

let site: FixtureServer;
let h: ApiHarness;
let org: TestOrg;
const gateRequests: GateRequest[] = [];
let gateOpen = false;
const children: ChildProcess[] = [];

beforeAll(async () => {
  site = await startFixtureServer({
    '/page': PAGE,
    '/gate': (req, res) => {
      const page = new URL(req.url ?? '/', 'http://fixture').searchParams.get('page') ?? '';
      const pending: GateRequest = { page, res, dropped: false };
      res.on('close', () => (pending.dropped = !res.writableFinished));
      gateRequests.push(pending);
      if (gateOpen) res.end('open');
    },
  });
  h = await createApiHarness();
  org = await h.newOrg();
});
afterAll(async () => {
  // SIGKILL ends a stopped process too.
  children.forEach(killWorkerProcess);
  await h.close();
  await site.close();
});

function openGate(): void {
  gateOpen = true;
  for (const pending of gateRequests) if (!pending.res.writableEnded) pending.res.end('open');
}

const row = async (executionId: string) => {
  const found = await findExecution(h.db, org.id, executionId);
  if (!found) throw new Error(`execution ${executionId} not found`);
  return found;
};

it('lets a frozen worker’s late writes change nothing once a newer attempt owns the run, and stops it', async () => {
  const botId = await h.newBot(
    org,
    { name: 'gated', targetUrl: site.url('/page') },
    {
      manifest: { capabilities: { stepScreenshots: true, timeout: 120 } },
      steps: [
        { action: 'extract', name: 'before', selector: '#title' },
        { action: 'waitFor', selector: '#released', timeout: 100_000 },
        { action: 'extract', name: 'after', selector: '#released' },
      ],
    },
  );

  const frozen = await spawnWorkerProcess(h.queues.prefix, org.id, {
    LOCK_DURATION_MS: String(FROZEN_LOCK_MS),
    WORKER_LOG_LEVEL: 'warn',
  });
  children.push(frozen);
  let frozenLog = '';
  frozen.stdout!.on('data', (chunk: Buffer) => (frozenLog += chunk.toString()));

  const trigger = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
  expect(trigger.status).toBe(202);
  const executionId: string = trigger.body.executionId;

  // Attempt 1 is at the gate, and has written its first step: freeze its worker.
  const firstPage = await waitUntil(() => gateRequests[0], {
    timeoutMs: 30_000,
    message: 'attempt 1 never reached the gate',
  });
  await waitUntil(async () => (await listStepOutputs(h.db, executionId)).length > 0, {
    timeoutMs: 30_000,
    message: 'attempt 1 never wrote its first step',
  });
  frozen.kill('SIGSTOP');

  // Another worker's stalled check finds the lock expired and runs the execution as attempt 2.
  const survivor = await startWorker({
    db: h.db,
    redis: redisSettingsFromUrl(testRedisUrl()),
    queuePrefix: h.queues.prefix,
    logger: createLogger({ level: 'silent' }),
    concurrency: 1,
    proxyUrls: [],
    defaultTimeoutSeconds: 60,
    lockDurationMs: SURVIVOR_LOCK_MS,
    stalledIntervalMs: 1_000,
    sweepIntervalMs: 60_000,
    sweepOrganizationId: org.id,
  });
  try {
    const secondPage = await waitUntil(() => gateRequests.find((r) => r.page !== firstPage.page), {
      timeoutMs: 40_000,
      message: 'attempt 2 never reached the gate',
    });
    expect((await row(executionId)).attempt).toBe(2);

    // Thawed, the first worker learns at its next flush that attempt 2 owns the run, and stops:
    // its browser context closes, which drops its page's pending request.
    frozen.kill('SIGCONT');
    await waitUntil(() => firstPage.dropped, {
      timeoutMs: 30_000,
      message: 'the superseded attempt’s page is still open',
    });
    await waitUntil(() => frozenLog.includes(`attempt 1 of ${executionId} was superseded; stopping`), {
      timeoutMs: 30_000,
      message: 'the superseded worker never said it stopped',
    });
    expect(secondPage.dropped).toBe(false);

    openGate();
    await waitUntil(async () => ['completed', 'failed', 'cancelled'].includes((await row(executionId)).status), {
      timeoutMs: 60_000,
      message: 'attempt 2 never ended',
    });
    expect(await row(executionId)).toMatchObject({
      status: 'completed',
      attempt: 2,
      extractedData: { before: 'Gated', after: 'released' },
    });

    // Attempt 2's outputs only: its three steps, one screenshot after each, and no line of
    // attempt 1 after attempt 2 started.
    const logs = await listExecutionLogs(h.db, executionId);
    const secondStart = logs.find((l) => l.message.startsWith('Attempt 2 started'));
    expect(secondStart).toBeDefined();
    expect(logs.filter((l) => l.attempt === 1 && l.id > secondStart!.id)).toEqual([]);
    const steps = await listStepOutputs(h.db, executionId);
    expect(steps.map((s) => [s.index, s.status])).toEqual([
      [0, 'completed'],
      [1, 'completed'],
      [2, 'completed'],
    ]);
    for (const step of steps) expect(step.startedAt.getTime()).toBeGreaterThanOrEqual(secondStart!.timestamp.getTime());
    const screenshots = (await listArtifacts(h.db, executionId)).filter((a) => a.kind === 'stepScreenshot');
    expect(screenshots.map((a) => a.stepIndex).sort()).toEqual([0, 1, 2]);
    // The first worker asks the site for nothing more: only attempt 2's page ever got past the gate.
    expect(gateRequests.map((r) => r.page)).toEqual([firstPage.page, secondPage.page]);
  } finally {
    await survivor.stop();
  }
}, 180_000);
