import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import request from 'supertest';
import { killWorkerProcess, spawnWorkerProcess } from './testing';

/*
 * Issue 21, defect 4: 40 steps trying to output 3 MiB each once grew the database by 125 MB in
 * one run, made GET /executions/:id/steps answer 125 MB and took the worker to 1.6 GB. Now the
 * run fails with output_too_large at the first step, in a worker process of its own whose peak
 * memory is measured, and the database holds nothing big.
 */

const MiB = 1024 * 1024;
let site: FixtureServer;
let h: ApiHarness;
let org: TestOrg;
let worker: ChildProcess;

beforeAll(async () => {
  site = await startFixtureServer({
    // 3 MiB made in the page (hidden: Chromium need not lay it out); the server sends a few bytes.
    '/big': `<!doctype html><body><div id="big" hidden></div><script>document.getElementById('big').textContent = 'x'.repeat(${3 * MiB});</script></body>`,
  });
  h = await createApiHarness();
  org = await h.newOrg();
  worker = await spawnWorkerProcess(h.queues.prefix, org.id);
}, 60_000);
afterAll(async () => {
  killWorkerProcess(worker);
  await h.close();
  await site.close();
});

/** A process's resident memory now (VmRSS) or at its peak (VmHWM), in bytes. */
function rss(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/**
 * Starts measuring the worker's peak memory from now: Linux resets the peak (VmHWM) to the
 * current resident size on "5" to clear_refs. Returns how much the peak has grown since.
 */
function measurePeakGrowth(pid: number): () => number {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  const start = rss(pid, 'VmRSS');
  return () => rss(pid, 'VmHWM') - start;
}

async function runToEnd(botId: string): Promise<{ executionId: string; body: Record<string, unknown> }> {
  const trigger = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
  expect(trigger.status).toBe(202);
  const executionId: string = trigger.body.executionId;
  const body = await waitUntil(
    async () => {
      const res = await request(h.app).get(`/api/v1/executions/${executionId}`).set(org.auth('read'));
      return ['completed', 'failed', 'cancelled'].includes(res.body.status) && (res.body as Record<string, unknown>);
    },
    { timeoutMs: 90_000, message: 'the run never finished' },
  );
  return { executionId, body };
}

async function setScript(botId: string, source: string): Promise<void> {
  const created = await request(h.app)
    .post(`/api/v1/bots/${botId}/scripts`)
    .set(org.auth('write'))
    .send({ name: 'script', source, active: true });
  expect(created.status).toBe(201);
}

/** What the database holds for the run: step outputs, logs and extracted data, in bytes. */
async function storedBytes(executionId: string): Promise<{ steps: number; logs: number; data: number }> {
  const [row] = await h.db.$queryRaw<{ steps: bigint; logs: bigint; data: bigint }[]>`
    SELECT (SELECT COALESCE(SUM(octet_length(COALESCE(data::text, '')) + octet_length(COALESCE(error, ''))), 0)
              FROM "StepOutput" WHERE "executionId" = ${executionId}) AS steps,
           (SELECT COALESCE(SUM(octet_length(message)), 0) FROM "ExecutionLog" WHERE "executionId" = ${executionId}) AS logs,
           (SELECT COALESCE(octet_length("extractedData"::text), 0) FROM "Execution" WHERE id = ${executionId}) AS data`;
  return { steps: Number(row!.steps), logs: Number(row!.logs), data: Number(row!.data) };
}

async function expectBoundedFailure(executionId: string, body: Record<string, unknown>): Promise<void> {
  expect(body).toMatchObject({ status: 'failed' });
  const failure = await request(h.app).get(`/api/v1/executions/${executionId}/failure`).set(org.auth('read'));
  expect(failure.body).toMatchObject({ stepIndex: 0, error: expect.stringContaining('output_too_large') });
  const stored = await storedBytes(executionId);
  expect(stored.steps).toBeLessThan(4_096);
  expect(stored.logs).toBeLessThan(16_384);
  expect(stored.data).toBe(0);
  const steps = await request(h.app).get(`/api/v1/executions/${executionId}/steps`).set(org.auth('read'));
  expect(steps.status).toBe(200);
  expect(steps.body.data).toEqual([
    expect.objectContaining({
      index: 0,
      status: 'failed',
      data: null,
      error: expect.stringContaining('output_too_large'),
    }),
  ]);
  expect(steps.text.length).toBeLessThan(4_096);
}

it('runs a small bot first, so the measurements below leave out the worker warming up', async () => {
  const steps = [{ action: 'extract', name: 'count', selector: '#big', attribute: 'hidden' }];
  const botId = await h.newBot(org, { name: 'warm-up', targetUrl: site.url('/big') }, { steps });
  expect((await runToEnd(botId)).body).toMatchObject({ status: 'completed' });
  // And a script, which starts the sandbox's first thread (and the spare the next run takes).
  await setScript(botId, `export default async ({ page, step }) => step('title', () => page.title());`);
  expect((await runToEnd(botId)).body).toMatchObject({ status: 'completed' });
}, 120_000);

it('fails 40 recorded 3 MiB extracts at the first, storing nothing big, the worker staying small', async () => {
  const steps = Array.from({ length: 40 }, (_unused, i) => ({ action: 'extract', name: `big${i}`, selector: '#big' }));
  const botId = await h.newBot(org, { name: 'big steps', targetUrl: site.url('/big') }, { steps });
  const growth = measurePeakGrowth(worker.pid!);
  const { executionId, body } = await runToEnd(botId);
  await expectBoundedFailure(executionId, body);
  // The 40 x 3 MiB the issue saw took the worker to 1.6 GB (120 MiB of text alone); a read refused
  // inside the page costs nothing. The bound leaves room for a busy machine's noise.
  const grown = growth();
  process.stdout.write(`worker peak grew ${Math.round(grown / MiB)} MiB during 40 recorded 3 MiB steps\n`);
  expect(grown).toBeLessThan(96 * MiB);
}, 120_000);

it('fails a script whose 40 steps return 3 MiB each at the first, the same way', async () => {
  const botId = await h.newBot(org, { name: 'big script', targetUrl: site.url('/big') }, {});
  const source = `export default async ({ page, step }) => {
    for (let i = 0; i < 40; i++) {
      await step('big ' + i, () => page.textContent('#big'));
    }
  };`;
  await setScript(botId, source);
  const growth = measurePeakGrowth(worker.pid!);
  const { executionId, body } = await runToEnd(botId);
  await expectBoundedFailure(executionId, body);
  // One 3 MiB text crossed into the sandbox (within the page-call bound) before the step's
  // output was refused; the rest never ran.
  const grown = growth();
  process.stdout.write(`worker peak grew ${Math.round(grown / MiB)} MiB during 40 scripted 3 MiB steps\n`);
  expect(grown).toBeLessThan(96 * MiB);
}, 120_000);
