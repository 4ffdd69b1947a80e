import { startFixtureServer, type FixtureServer } from '@botfleet/testkit';
import request from 'supertest';
import { createE2eHarness, type E2eHarness } from './testing/e2e-harness';

/*
 * A bot's retry policy with real Chromium: a bot failure is tried again within the same
 * execution, and its logs say which try wrote each line.
 */

let h: E2eHarness;
let site: FixtureServer;
/** How many times /flaky was loaded: the first load lacks the element the bot waits for. */
let flakyLoads = 0;

beforeAll(async () => {
  site = await startFixtureServer({
    '/flaky': (_req, res) => {
      flakyLoads++;
      const body = flakyLoads === 1 ? '<p>warming up</p>' : '<h1 id="title">Ready</h1>';
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><body>${body}</body>`);
    },
    '/broken': '<!doctype html><body><p>never ready</p></body>',
  });
  h = await createE2eHarness();
});
afterAll(async () => {
  await h.close();
  await site.close();
});

const setRetry = (botId: string, retry: object) =>
  request(h.api.app).patch(`/api/v1/bots/${botId}`).set(h.org.auth('write')).send({ retry });

it('a failed first try is retried in the same execution and succeeds on attempt 2', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/flaky'),
    // Long enough that the second try finds the title on a busy machine (CI once saw it time out
    // and a third try succeed); the first try waits it out.
    steps: [{ action: 'extract', name: 'title', selector: '#title', timeout: 3_000 }],
  });
  const patched = await setRetry(botId, { attempts: 2, delaySeconds: 1 });
  expect(patched.status).toBe(200);
  expect(patched.body.retry).toEqual({ attempts: 2, delaySeconds: 1 });

  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId);
  expect(execution).toMatchObject({ id: executionId, status: 'completed', attempt: 2 });
  expect(flakyLoads).toBe(2);
  expect((await h.get(`/api/v1/executions/${executionId}/extract`)).body.data).toEqual({ title: 'Ready' });
  // The steps are the last try's; the logs keep both tries, each line saying which.
  const steps = (await h.get(`/api/v1/executions/${executionId}/steps`)).body.data;
  expect(steps.map((s: { status: string }) => s.status)).toEqual(['completed']);
  const logs: { attempt: number; message: string }[] = (await h.get(`/api/v1/executions/${executionId}/logs`)).body
    .data;
  expect(logs.find((l) => l.message.startsWith('Attempt 1 started'))?.attempt).toBe(1);
  expect(logs.find((l) => l.message.startsWith('Attempt 1 failed'))?.attempt).toBe(1);
  expect(logs.find((l) => l.message.startsWith('Attempt 2 started'))?.attempt).toBe(2);
  expect(new Set(logs.map((l) => l.attempt))).toEqual(new Set([1, 2]));
  // One execution for the bot: the retry did not start another.
  expect((await h.get(`/api/v1/bots/${botId}/executions`)).body.data).toHaveLength(1);
});

it('fails after the last allowed try, with that try’s failure', async () => {
  const botId = await h.createBot({
    targetUrl: site.url('/broken'),
    steps: [{ action: 'click', selector: '#missing', timeout: 300 }],
  });
  await setRetry(botId, { attempts: 1, delaySeconds: 0 });
  const executionId = await h.trigger(botId);
  const execution = await h.waitForFinal(executionId);
  expect(execution).toMatchObject({ status: 'failed', attempt: 2 });
  const failure = (await h.get(`/api/v1/executions/${executionId}/failure`)).body;
  expect(failure).toMatchObject({ error: expect.stringContaining('#missing'), stepIndex: 0 });
  const logs: { attempt: number; message: string }[] = (await h.get(`/api/v1/executions/${executionId}/logs`)).body
    .data;
  expect(logs.filter((l) => /^Attempt \d started/.test(l.message)).map((l) => l.attempt)).toEqual([1, 2]);
});

it('refuses a retry policy out of range, naming the field', async () => {
  const botId = await h.createBot({ targetUrl: site.url('/broken') });
  for (const [retry, path] of [
    [{ attempts: 6 }, 'retry.attempts'],
    [{ attempts: -1 }, 'retry.attempts'],
    [{ attempts: 1, delaySeconds: 3601 }, 'retry.delaySeconds'],
  ] as const) {
    const res = await setRetry(botId, retry);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  }
  expect((await h.get(`/api/v1/bots/${botId}`)).body.retry).toEqual({ attempts: 0, delaySeconds: 0 });
});
