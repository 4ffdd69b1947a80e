import { redisSettingsFromUrl } from '@botfleet/core';
import { listExecutions } from '@botfleet/db';
import { claimExecution } from '@botfleet/db/state';
import { createTestExecution } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { closeRedis, consume, createRedisConnection, executionRun, stopWorker } from '@botfleet/queue';
import { testRedisUrl, waitUntil } from '@botfleet/testkit';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

async function actionBot(
  parameters: object[] = [
    { name: 'query', type: 'string', required: true },
    { name: 'maxPrice', type: 'number' },
    { name: 'pages', type: 'integer' },
    { name: 'express', type: 'boolean' },
  ],
): Promise<string> {
  return h.newBot(org, { name: 'a', kind: 'action' }, { manifest: { parameters } });
}
const trigger = (botId: string, body?: object, headers: Record<string, string> = {}) => {
  const req = request(h.app).post(`/api/v1/bots/${botId}/executions`).set(org.auth('write')).set(headers);
  return body === undefined ? req : req.send(body);
};

describe('POST /api/v1/bots/:botId/executions', () => {
  it('writes a pending execution, enqueues its job and answers 202 with Location', async () => {
    const botId = await actionBot();
    const res = await trigger(botId, { params: { query: 'boots', maxPrice: 20.5, pages: 2, express: false } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ executionId: expect.stringMatching(/^exe_/), status: 'pending' });
    expect(res.headers.location).toBe(`/api/v1/executions/${res.body.executionId}`);

    const job = await h.queues.get(executionRun.queue).getJob(res.body.executionId);
    expect(job?.name).toBe('execution.run');
    expect(job?.data).toEqual({ executionId: res.body.executionId });

    const execution = await request(h.app).get(`/api/v1/executions/${res.body.executionId}`).set(org.auth('read'));
    expect(execution.body).toEqual({
      id: res.body.executionId,
      botId,
      botName: 'a',
      status: 'pending',
      trigger: 'api',
      params: { query: 'boots', maxPrice: 20.5, pages: 2, express: false },
      // Version 1 is the bot as created; its manifest's parameters made version 2.
      botVersion: 2,
      attempt: 1,
      createdAt: expect.any(Number),
      startedAt: null,
      completedAt: null,
      duration: null,
    });
  });

  it('accepts an empty body for a bot without parameters', async () => {
    const botId = await h.newBot(org, { name: 'e' });
    expect((await trigger(botId)).status).toBe(202);
    expect((await trigger(botId, {})).status).toBe(202);
  });

  it('names an unknown parameter and suggests the closest one', async () => {
    const botId = await actionBot();
    const res = await trigger(botId, { params: { qurey: 'boots' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'unknown_parameter',
        message: "Unknown parameter 'qurey'. Did you mean 'query'?",
        details: { parameter: 'qurey', suggestion: 'query' },
      },
    });
    const plain = await trigger(await h.newBot(org, { name: 'n' }), { params: { anything: 1 } });
    expect(plain.body.error).toEqual({
      code: 'unknown_parameter',
      message: "Unknown parameter 'anything'.",
      details: { parameter: 'anything', suggestion: null },
    });
  });

  it.each([
    [{}, 'params.query'],
    [{ params: { query: 5 } }, 'params.query'],
    [{ params: { query: 'x', maxPrice: '5' } }, 'params.maxPrice'],
    [{ params: { query: 'x', pages: 1.5 } }, 'params.pages'],
    [{ params: { query: 'x', express: 'yes' } }, 'params.express'],
  ])('refuses missing or mistyped params %j', async (body, path) => {
    const res = await trigger(await actionBot(), body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('refuses a malformed body', async () => {
    const botId = await actionBot();
    expect((await trigger(botId, { params: 'query=x' })).body.error.code).toBe('validation_error');
    expect((await trigger(botId, { params: { query: 'x' }, priority: 1 })).body.error.details[0].path).toBe('priority');
  });

  it('refuses to run a paused bot with 409', async () => {
    const botId = await actionBot();
    await request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status: 'paused' });
    const res = await trigger(botId, { params: { query: 'x' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
  });

  it('returns the first execution for a repeated Idempotency-Key, even when racing', async () => {
    const botId = await actionBot();
    const headers = { 'Idempotency-Key': `key-${Date.now()}` };
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => trigger(botId, { params: { query: 'x' } }, headers)),
    );
    const ids = new Set(responses.map((r) => r.body.executionId));
    expect(ids.size).toBe(1);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 202]);
    expect((await listExecutions(h.db, botId, { limit: 100 })).items).toHaveLength(1);

    const otherBot = await actionBot();
    const reused = await trigger(otherBot, { params: { query: 'x' } }, headers);
    expect(reused.status).toBe(409);
    const bad = await trigger(botId, { params: { query: 'x' } }, { 'Idempotency-Key': 'x'.repeat(300) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('Idempotency-Key');
  });
});

describe('a trigger on a bot changed since this process last read it', () => {
  // The API keeps the bots its triggers read (recentBotForTrigger) and nothing in this process
  // invalidates them, so a change made through this same API is, to that memo, a change made by
  // another API process: each case warms the memo with a trigger, changes the bot, and checks
  // the answer is the one the bot as it is now gives.
  const patchBot = (botId: string, body: object) =>
    request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send(body);
  const putParameters = (botId: string, parameters: object[]) =>
    request(h.app).put(`/api/v1/bots/${botId}/manifest`).set(org.auth('write')).send({ parameters });
  const batch = (botId: string, runs: object[]) =>
    request(h.app).post(`/api/v1/bots/${botId}/executions/batch`).set(org.auth('write')).send({ runs });
  const botVersionOf = async (executionId: string) =>
    (await h.db.execution.findUniqueOrThrow({ where: { id: executionId } })).botVersion;

  it('refuses a bot paused since (409, nothing written) and runs it once resumed', async () => {
    const botId = await actionBot();
    expect((await trigger(botId, { params: { query: 'x' } })).status).toBe(202);
    expect((await patchBot(botId, { status: 'paused' })).status).toBe(200);
    const refused = await trigger(botId, { params: { query: 'x' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect((await batch(botId, [{ params: { query: 'x' } }])).status).toBe(409);
    expect((await listExecutions(h.db, botId, { limit: 100 })).items).toHaveLength(1);

    // The memo now holds the paused bot: a refusal from it is checked on the bot as it is now.
    expect((await patchBot(botId, { status: 'active' })).status).toBe(200);
    expect((await trigger(botId, { params: { query: 'x' } })).status).toBe(202);
    expect((await batch(botId, [{ params: { query: 'x' } }, { params: { query: 'y' } }])).status).toBe(202);
    expect((await listExecutions(h.db, botId, { limit: 100 })).items).toHaveLength(4);
  });

  it('judges params by the parameters as they are now, and runs the version it judged them on', async () => {
    const botId = await actionBot([{ name: 'query', type: 'string', required: true }]);
    const first = await trigger(botId, { params: { query: 'x' } });
    expect(first.status).toBe(202);
    expect((await putParameters(botId, [{ name: 'city', type: 'string', required: true }])).status).toBe(200);

    const old = await trigger(botId, { params: { query: 'x' } });
    expect(old.status).toBe(400);
    expect(old.body.error.code).toBe('unknown_parameter');
    const now = await trigger(botId, { params: { city: 'Oslo' } });
    expect(now.status).toBe(202);
    expect(await botVersionOf(now.body.executionId)).toBe((await botVersionOf(first.body.executionId)) + 1);

    // Accepted by the memo's parameters but not by the bot's: written on the new version, or refused.
    expect(
      (
        await putParameters(botId, [
          { name: 'city', type: 'string' },
          { name: 'query', type: 'string' },
        ])
      ).status,
    ).toBe(200);
    const both = await trigger(botId, { params: { query: 'x' } });
    expect(both.status).toBe(202);
    expect(await botVersionOf(both.body.executionId)).toBe((await botVersionOf(now.body.executionId)) + 1);
    const batched = await batch(botId, [{ params: { city: 'Rome' } }]);
    expect(batched.status).toBe(202);
    expect(await botVersionOf(batched.body.data[0].executionId)).toBe(await botVersionOf(both.body.executionId));
  });

  it('answers 404 for a bot deleted since, and never serves another organization from the memo', async () => {
    const botId = await actionBot();
    expect((await trigger(botId, { params: { query: 'x' } })).status).toBe(202);
    const other = await h.newOrg();
    const foreign = await request(h.app)
      .post(`/api/v1/bots/${botId}/executions`)
      .set(other.auth('write'))
      .send({ params: { query: 'x' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');

    expect((await request(h.app).delete(`/api/v1/bots/${botId}`).set(org.auth('write'))).status).toBe(204);
    const gone = await trigger(botId, { params: { query: 'x' } });
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
    expect((await batch(botId, [{ params: { query: 'x' } }])).status).toBe(404);
  });
});

describe('cancel and lookups', () => {
  it('cancels a pending execution once, then answers 409', async () => {
    const botId = await actionBot();
    const { executionId } = (await trigger(botId, { params: { query: 'x' } })).body;
    const res = await request(h.app).post(`/api/v1/executions/${executionId}/cancel`).set(org.auth('write'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: executionId, status: 'cancelled', completedAt: expect.any(Number) });
    expect(await h.queues.get(executionRun.queue).getJob(executionId)).toBeUndefined();
    const again = await request(h.app).post(`/api/v1/executions/${executionId}/cancel`).set(org.auth('write'));
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe('Execution is already cancelled');
  });

  it('answers 404 for latest-execution and latest-extract of a bot that never ran, and for unknown steps', async () => {
    const botId = await actionBot();
    expect((await request(h.app).get(`/api/v1/bots/${botId}/latest-execution`).set(org.auth('read'))).status).toBe(404);
    expect((await request(h.app).get(`/api/v1/bots/${botId}/latest-extract`).set(org.auth('read'))).status).toBe(404);
    const { executionId } = (await trigger(botId, { params: { query: 'x' } })).body;
    expect((await request(h.app).get(`/api/v1/executions/${executionId}/steps`).set(org.auth('read'))).body).toEqual({
      data: [],
    });
    expect((await request(h.app).get(`/api/v1/executions/${executionId}/steps/0`).set(org.auth('read'))).status).toBe(
      404,
    );
    expect((await request(h.app).get(`/api/v1/executions/${executionId}/steps/-1`).set(org.auth('read'))).status).toBe(
      400,
    );
    expect((await request(h.app).get(`/api/v1/executions/${executionId}/logs`).set(org.auth('read'))).body).toEqual({
      data: [],
    });
    expect((await request(h.app).get(`/api/v1/executions/${executionId}/failure`).set(org.auth('read'))).status).toBe(
      404,
    );
  });
});

describe('GET /api/v1/queue', () => {
  it('gives an admin key its own organization’s pending and running runs and the oldest wait, only', async () => {
    // Fresh organizations: the counts must be exact, whatever the other tests here queued.
    const mine = await h.newOrg();
    const theirs = await h.newOrg();
    const myBot = await h.newBot(mine, { name: 'mine' });
    const theirBot = await h.newBot(theirs, { name: 'theirs' });
    const oldest = await createTestExecution(h.db, { botId: myBot, organizationId: mine.id });
    await createTestExecution(h.db, { botId: myBot, organizationId: mine.id });
    const started = await createTestExecution(h.db, { botId: myBot, organizationId: mine.id });
    expect(await claimExecution(h.db, started.id)).not.toBeNull();
    await createTestExecution(h.db, { botId: myBot, organizationId: mine.id, completed: { extractedData: null } });
    for (let i = 0; i < 5; i++) await createTestExecution(h.db, { botId: theirBot, organizationId: theirs.id });

    const before = Date.now();
    const res = await request(h.app).get('/api/v1/queue').set(mine.auth('admin'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      pending: 2,
      running: 1,
      oldestPendingCreatedAt: oldest.createdAt.getTime(),
      oldestPendingAgeMs: expect.any(Number),
      workers: 0,
    });
    expect(res.body.oldestPendingAgeMs).toBeLessThanOrEqual(Date.now() - oldest.createdAt.getTime());
    expect(res.body.oldestPendingAgeMs).toBeGreaterThanOrEqual(before - oldest.createdAt.getTime());

    const other = await request(h.app).get('/api/v1/queue').set(theirs.auth('admin'));
    expect(other.body).toMatchObject({ pending: 5, running: 0 });
    const empty = await request(h.app)
      .get('/api/v1/queue')
      .set((await h.newOrg()).auth('admin'));
    expect(empty.body).toMatchObject({
      pending: 0,
      running: 0,
      oldestPendingCreatedAt: null,
      oldestPendingAgeMs: null,
    });
  });

  it('counts the workers connected to the executions queue', async () => {
    const connection = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'worker');
    // Not running: it connects (and names its connection) without taking the jobs other tests queued.
    const worker = consume(
      executionRun,
      { connection, prefix: h.queues.prefix, autorun: false, logger: createLogger({ level: 'silent' }) },
      async () => undefined,
    );
    try {
      const seen = await waitUntil(
        async () => {
          const res = await request(h.app).get('/api/v1/queue').set(org.auth('admin'));
          return res.body.workers >= 1 ? (res.body.workers as number) : false;
        },
        { timeoutMs: 10_000, message: 'the worker to be counted' },
      );
      expect(seen).toBe(1);
    } finally {
      await stopWorker(worker, 1_000);
      await closeRedis(connection);
    }
  });

  it('refuses read and write keys (403) and a missing key (401)', async () => {
    for (const permission of ['read', 'write'] as const) {
      const res = await request(h.app).get('/api/v1/queue').set(org.auth(permission));
      expect({ permission, status: res.status }).toEqual({ permission, status: 403 });
    }
    expect((await request(h.app).get('/api/v1/queue')).status).toBe(401);
  });
});
