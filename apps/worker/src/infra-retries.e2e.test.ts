import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { findExecution, listExecutionLogs, listStepOutputs } from '@botfleet/db';
import { chromiumChildren, startFixtureServer, waitUntil, type FixtureServer } from '@botfleet/testkit';
import type { ChildProcess } from 'node:child_process';
import request from 'supertest';
import { killWorkerProcess, spawnWorkerProcess, startTestWorker } from './testing';

/*
 * A run whose worker dies is infrastructure's fault: it is tried again as a new attempt, up to
 * EXECUTION_MAX_INFRA_RETRIES (2 here), then fails with infrastructure_failure. The count lives
 * on the row, apart from the bot's own retry policy. Workers run in processes of their own and
 * are SIGKILLed mid-run; one is alive at a time, so each kill hands the run to the next one.
 */

const MAX_INFRA_RETRIES = 2;
let site: FixtureServer;
let h: ApiHarness;
let org: TestOrg;
const started: ChildProcess[] = [];

beforeAll(async () => {
  site = await startFixtureServer({ '/page': '<!doctype html><body><h1 id="title">Still here</h1></body>' });
  h = await createApiHarness();
  org = await h.newOrg();
});
// A test's last worker process would otherwise still consume the queue in the next test, and
// could take a run meant for that test's worker.
afterEach(() => {
  started.splice(0).forEach(killWorkerProcess);
});
afterAll(async () => {
  await h.close();
  await site.close();
});

async function startWorkerProcess(): Promise<ChildProcess> {
  const child = await spawnWorkerProcess(h.queues.prefix, org.id, { MAX_INFRA_RETRIES: String(MAX_INFRA_RETRIES) });
  started.push(child);
  return child;
}

const row = async (executionId: string) => {
  const found = await findExecution(h.db, org.id, executionId);
  if (!found) throw new Error(`execution ${executionId} not found`);
  return found;
};

/** Triggers a run of the bot, SIGKILLs its worker during each of the first `kills` attempts, and waits for the end. */
async function runWithKills(botId: string, kills: number) {
  let worker = await startWorkerProcess();
  const trigger = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
  expect(trigger.status).toBe(202);
  const executionId: string = trigger.body.executionId;
  for (let attempt = 1; attempt <= kills; attempt++) {
    await waitUntil(
      async () => {
        const current = await row(executionId);
        return current.status === 'running' && current.attempt === attempt;
      },
      { timeoutMs: 30_000, message: `attempt ${attempt} never started` },
    );
    killWorkerProcess(worker);
    // The next worker's stalled check hands it the job once the dead one's lock expires.
    worker = await startWorkerProcess();
  }
  await waitUntil(async () => ['completed', 'failed', 'cancelled'].includes((await row(executionId)).status), {
    timeoutMs: 60_000,
    message: 'the run never finished',
  });
  killWorkerProcess(worker);
  return { executionId, execution: await row(executionId) };
}

const slowSteps = [
  // Long enough to be killed in, short enough to finish on a busy machine.
  { action: 'waitFor', ms: 4_000 },
  { action: 'extract', name: 'title', selector: '#title' },
];

/** Long on the page: the log that says the page opened is flushed within a second or so, and the kill must land before the run ends. */
const onPageSteps = [{ action: 'waitFor', ms: 15_000 }, ...slowSteps.slice(1)];

it('completes a run whose worker was killed as many times as EXECUTION_MAX_INFRA_RETRIES allows', async () => {
  const botId = await h.newBot(org, { name: 'survives', targetUrl: site.url('/page') }, { steps: slowSteps });
  const { executionId, execution } = await runWithKills(botId, MAX_INFRA_RETRIES);
  expect(execution).toMatchObject({
    status: 'completed',
    attempt: MAX_INFRA_RETRIES + 1,
    infraRetries: MAX_INFRA_RETRIES,
    extractedData: { title: 'Still here' },
  });
  const messages = (await listExecutionLogs(h.db, executionId)).map((l) => l.message);
  expect(messages).toEqual(
    expect.arrayContaining([expect.stringMatching(/^Attempt 3 started: .*, infrastructure retry 2 of 2$/)]),
  );
}, 180_000);

it('fails with infrastructure_failure a run whose worker was killed more times than that', async () => {
  const botId = await h.newBot(org, { name: 'doomed', targetUrl: site.url('/page') }, { steps: slowSteps });
  const { executionId, execution } = await runWithKills(botId, MAX_INFRA_RETRIES + 1);
  expect(execution).toMatchObject({
    status: 'failed',
    attempt: MAX_INFRA_RETRIES + 2,
    infraRetries: MAX_INFRA_RETRIES + 1,
    extractedData: null,
  });
  expect(execution.error).toMatch(
    /^infrastructure_failure: the run's worker stopped or its browser failed 3 times \(EXECUTION_MAX_INFRA_RETRIES=2\)$/,
  );
  // The last claim did not run the bot again (the killed attempts' buffered lines died with them).
  const messages = (await listExecutionLogs(h.db, executionId)).map((l) => l.message);
  expect(messages).toContainEqual(expect.stringMatching(/^Attempt 4 not started: infrastructure_failure/));
  expect(messages).not.toContainEqual(expect.stringMatching(/^Attempt 4 started/));
  expect(await listStepOutputs(h.db, executionId)).toEqual([]);
}, 180_000);

it("does not spend the bot's own retry policy on a killed worker", async () => {
  // The bot fails by itself (a missing element) and may be tried twice; its first try is killed.
  const steps = [
    { action: 'waitFor', ms: 4_000 },
    { action: 'extract', name: 'gone', selector: '#gone', timeout: 500 },
  ];
  const botId = await h.newBot(org, { name: 'flaky', targetUrl: site.url('/page') }, { steps });
  const patched = await request(h.app)
    .patch(`/api/v1/bots/${botId}`)
    .set(org.auth('write'))
    .send({ retry: { attempts: 1, delaySeconds: 0 } });
  expect(patched.status).toBe(200);
  const { executionId, execution } = await runWithKills(botId, 1);
  // Attempt 1 killed, attempt 2 = the bot's try 1 (failed), attempt 3 = its try 2 (failed).
  expect(execution).toMatchObject({ status: 'failed', attempt: 3, infraRetries: 1 });
  expect(execution.error).toContain('#gone');
  const messages = (await listExecutionLogs(h.db, executionId)).map((l) => l.message);
  expect(messages).toEqual(expect.arrayContaining(['Retrying now: try 2 of 2']));
}, 180_000);

it('retries a run whose Chromium crashed as a new attempt, counted the same way', async () => {
  const botId = await h.newBot(org, { name: 'crashing browser', targetUrl: site.url('/page') }, { steps: onPageSteps });
  // In this process: the test kills the worker's Chromium, not the worker.
  const worker = await startTestWorker(h, org, { maxInfraRetries: MAX_INFRA_RETRIES });
  try {
    const trigger = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).send({});
    const executionId: string = trigger.body.executionId;
    // Killed while the run is on the page: a browser that dies between the claim and the run's
    // context is simply launched again for it, with no retry to count.
    await waitUntil(
      async () => (await listExecutionLogs(h.db, executionId)).some((l) => l.message.startsWith('Opened ')),
      { timeoutMs: 30_000, message: 'the run never opened its page' },
    );
    const browser = await waitUntil(
      // This process's own browser, a direct child (its helpers carry --type=).
      () => chromiumChildren(process.pid).find((p) => !/--type=/.test(p.command)),
      { timeoutMs: 10_000, message: 'no Chromium under this process' },
    );
    process.kill(browser.pid, 'SIGKILL');
    await waitUntil(async () => ['completed', 'failed'].includes((await row(executionId)).status), {
      timeoutMs: 60_000,
      message: 'the run never finished',
    });
    expect(await row(executionId)).toMatchObject({ status: 'completed', attempt: 2, infraRetries: 1 });
    const messages = (await listExecutionLogs(h.db, executionId)).map((l) => l.message);
    // Crashed under the run, or while it was being set up: either is the browser's doing.
    expect(messages).toContainEqual(
      expect.stringMatching(/^Infrastructure failure: (Chromium|Could not create a browser context)/),
    );
    expect(messages).toContainEqual('Retrying in 2 s as a new attempt (infrastructure retry 1 of 2)');
  } finally {
    await worker.stop();
  }
}, 120_000);
