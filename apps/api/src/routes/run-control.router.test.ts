import { listExecutions } from '@botfleet/db';
import { claimExecution } from '@botfleet/db/state';
import { createTestExecution } from '@botfleet/db/testing';
import { executionRun } from '@botfleet/queue';
import request from 'supertest';
import { useApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';

/* Rerun, batch, bulk cancel and execution filters, through HTTP on real PostgreSQL and Redis. */

let h: ApiHarness;
let org: TestOrg;
useApiHarness((harness, first) => {
  h = harness;
  org = first;
});

const CITY = [{ name: 'city', type: 'string', required: true }];
const actionBot = (o: TestOrg = org) =>
  h.newBot(o, { name: 'city', kind: 'action' }, { manifest: { parameters: CITY } });
const post = (path: string, body: object, o: TestOrg = org) =>
  request(h.app).post(`/api/v1${path}`).set(o.auth('write')).send(body);
const get = (path: string, o: TestOrg = org) => request(h.app).get(`/api/v1${path}`).set(o.auth('read'));
const allOf = async (botId: string) => (await listExecutions(h.db, botId, { limit: 2_000 })).items;
const job = (executionId: string) => h.queues.get(executionRun.queue).getJob(executionId);

describe('POST /executions/:executionId/rerun', () => {
  it('starts a new execution with the same params, trigger "rerun" and rerunOf', async () => {
    const botId = await actionBot();
    const first = await post(`/bots/${botId}/executions`, { params: { city: 'Oslo' } });
    const res = await post(`/executions/${first.body.executionId}/rerun`, {});
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ executionId: expect.any(String), status: 'pending' });
    expect(res.headers.location).toBe(`/api/v1/executions/${res.body.executionId}`);
    expect(res.body.executionId).not.toBe(first.body.executionId);
    const view = await get(`/executions/${res.body.executionId}`);
    expect(view.body).toMatchObject({
      trigger: 'rerun',
      rerunOf: first.body.executionId,
      params: { city: 'Oslo' },
      attempt: 1,
    });
    expect((await get(`/executions/${first.body.executionId}`)).body.rerunOf).toBeUndefined();
    expect(await job(res.body.executionId)).toMatchObject({ data: { executionId: res.body.executionId } });
  });

  it('takes new params, checked like a trigger’s', async () => {
    const botId = await actionBot();
    const first = await post(`/bots/${botId}/executions`, { params: { city: 'Oslo' } });
    const other = await post(`/executions/${first.body.executionId}/rerun`, { params: { city: 'Bergen' } });
    expect((await get(`/executions/${other.body.executionId}`)).body.params).toEqual({ city: 'Bergen' });
    const bad = await post(`/executions/${first.body.executionId}/rerun`, { params: { city: 3 } });
    expect(bad.status).toBe(400);
    expect(await allOf(botId)).toHaveLength(2);
  });

  it('answers 404 for another organization’s execution and 409 for a paused bot', async () => {
    const botId = await actionBot();
    const first = await post(`/bots/${botId}/executions`, { params: { city: 'Oslo' } });
    const stranger = await h.newOrg();
    expect((await post(`/executions/${first.body.executionId}/rerun`, {}, stranger)).status).toBe(404);
    await request(h.app).patch(`/api/v1/bots/${botId}`).set(org.auth('write')).send({ status: 'paused' });
    expect((await post(`/executions/${first.body.executionId}/rerun`, {})).status).toBe(409);
    expect(await allOf(botId)).toHaveLength(1);
  });
});

describe('POST /bots/:botId/executions/batch', () => {
  it('accepts 1,000 runs in one request: pending rows in order, each with its params and job', async () => {
    const botId = await actionBot();
    const runs = Array.from({ length: 1_000 }, (_, i) => ({ params: { city: `c${i}` } }));
    const res = await post(`/bots/${botId}/executions/batch`, { runs });
    expect(res.status).toBe(202);
    expect(res.body.data).toHaveLength(1_000);
    expect(res.body.data[0]).toEqual({ executionId: expect.any(String), status: 'pending' });
    const rows = new Map((await allOf(botId)).map((row) => [row.id, row]));
    expect(rows.size).toBe(1_000);
    res.body.data.forEach(({ executionId }: { executionId: string }, i: number) => {
      expect(rows.get(executionId)).toMatchObject({ status: 'pending', trigger: 'api', params: { city: `c${i}` } });
    });
    const queue = h.queues.get(executionRun.queue);
    const jobs = await Promise.all(res.body.data.map((r: { executionId: string }) => queue.getJob(r.executionId)));
    expect(jobs.filter(Boolean)).toHaveLength(1_000);
  });

  it('refuses the whole batch for one bad run, naming it, and creates nothing', async () => {
    const botId = await actionBot();
    const runs: { params: Record<string, unknown> }[] = Array.from({ length: 30 }, (_, i) => ({
      params: { city: `c${i}` },
    }));
    runs[17] = { params: {} };
    runs[21] = { params: { city: 5 } };
    const res = await post(`/bots/${botId}/executions/batch`, { runs });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toEqual([
      { path: 'runs.17.params.city', message: 'is required' },
      { path: 'runs.21.params.city', message: 'must be of type string' },
    ]);
    expect(await allOf(botId)).toEqual([]);
  });

  it.each([
    ['no runs', { runs: [] }, 'runs'],
    ['1,001 runs', { runs: Array.from({ length: 1_001 }, () => ({ params: { city: 'x' } })) }, 'runs'],
    ['a run with an unknown field', { runs: [{ params: { city: 'x' } }, { parmas: {} }] }, 'runs.1'],
    ['an unknown parameter', { runs: [{ params: { city: 'x', town: 'y' } }] }, 'runs.0.params.town'],
  ])('rejects %s with a 400 naming the field', async (_case, body, path) => {
    const botId = await actionBot();
    const res = await post(`/bots/${botId}/executions/batch`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path).join(' ')).toContain(path);
    expect(await allOf(botId)).toEqual([]);
  });
});

describe('POST /bots/:botId/executions/cancel', () => {
  it('cancels pending runs by default, and running ones when asked', async () => {
    const botId = await actionBot();
    const batch = await post(`/bots/${botId}/executions/batch`, {
      runs: Array.from({ length: 5 }, () => ({ params: { city: 'x' } })),
    });
    const ids: string[] = batch.body.data.map((r: { executionId: string }) => r.executionId);
    await claimExecution(h.db, ids[0]!);
    const pending = await post(`/bots/${botId}/executions/cancel`, {});
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({ cancelled: 4 });
    expect(await job(ids[1]!)).toBeUndefined();
    const statuses = new Map((await allOf(botId)).map((row) => [row.id, row.status]));
    expect(statuses.get(ids[0]!)).toBe('running');
    expect([...statuses.values()].filter((s) => s === 'cancelled')).toHaveLength(4);

    expect((await post(`/bots/${botId}/executions/cancel`, { status: ['running'] })).body).toEqual({ cancelled: 1 });
    expect((await post(`/bots/${botId}/executions/cancel`, { status: ['pending', 'running'] })).body).toEqual({
      cancelled: 0,
    });
  });

  it('touches only its own bot, and refuses a status it cannot cancel', async () => {
    const botId = await actionBot();
    const otherBot = await actionBot();
    await post(`/bots/${otherBot}/executions`, { params: { city: 'x' } });
    expect((await post(`/bots/${botId}/executions/cancel`, {})).body).toEqual({ cancelled: 0 });
    expect((await allOf(otherBot))[0]!.status).toBe('pending');
    const bad = await post(`/bots/${botId}/executions/cancel`, { status: ['completed'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toMatch(/^status/);
    expect((await post(`/bots/${otherBot}/executions/cancel`, {}, await h.newOrg())).status).toBe(404);
  });
});

describe('execution filters and the organization-wide list', () => {
  it('filters by status, trigger and created range, for a bot and across the organization', async () => {
    const o = await h.newOrg();
    const a = await h.newBot(o, { name: 'a' });
    const b = await h.newBot(o, { name: 'b' });
    const done = await createTestExecution(h.db, { botId: a, organizationId: o.id, completed: { extractedData: {} } });
    const waiting = await post(`/bots/${a}/executions`, {}, o);
    const rerun = await post(`/executions/${done.id}/rerun`, {}, o);
    const other = await post(`/bots/${b}/executions`, {}, o);
    const ids = (res: request.Response) => res.body.data.map((e: { id: string }) => e.id).sort();

    expect(ids(await get(`/bots/${a}/executions?status=completed`, o))).toEqual([done.id]);
    expect(ids(await get(`/bots/${a}/executions?status=pending,completed`, o))).toEqual(
      [done.id, waiting.body.executionId, rerun.body.executionId].sort(),
    );
    expect(ids(await get(`/bots/${a}/executions?trigger=rerun`, o))).toEqual([rerun.body.executionId]);
    expect(ids(await get(`/executions`, o))).toEqual(
      [done.id, waiting.body.executionId, rerun.body.executionId, other.body.executionId].sort(),
    );
    expect(ids(await get(`/executions?botId=${b}`, o))).toEqual([other.body.executionId]);
    // Each run carries its bot's name (joined by the list's read), so a reader needs no read per bot.
    const named = (await get(`/executions`, o)).body.data.map((e: { botId: string; botName: string }) => [
      e.botId,
      e.botName,
    ]);
    expect(new Set(named.map(String))).toEqual(new Set([`${a},a`, `${b},b`]));
    expect((await get(`/executions/${other.body.executionId}`, o)).body.botName).toBe('b');
    expect(ids(await get(`/executions?status=pending&trigger=api`, o))).toEqual(
      [waiting.body.executionId, other.body.executionId].sort(),
    );

    const created = (await get(`/executions/${other.body.executionId}`, o)).body.createdAt as number;
    expect(ids(await get(`/executions?createdAfter=${created}`, o))).toContain(other.body.executionId);
    expect(ids(await get(`/executions?createdBefore=${created}`, o))).not.toContain(other.body.executionId);
    expect(ids(await get(`/executions?createdAfter=${Date.now() + 60_000}`, o))).toEqual([]);
    // Another organization sees none of them.
    expect(ids(await get(`/executions?botId=${a}`))).toEqual([]);
  });

  it('pages through a filtered list', async () => {
    const o = await h.newOrg();
    const a = await h.newBot(o, { name: 'a' });
    await post(`/bots/${a}/executions/batch`, { runs: Array.from({ length: 5 }, () => ({})) }, o);
    const first = await get(`/executions?status=pending&limit=3`, o);
    expect(first.body.data).toHaveLength(3);
    const second = await get(`/executions?status=pending&limit=3&cursor=${first.body.nextCursor}`, o);
    expect(second.body.data).toHaveLength(2);
    expect(second.body.nextCursor).toBeNull();
  });

  it.each([
    ['an unknown status', '?status=pending,done', 'status'],
    ['an empty status item', '?status=pending,', 'status'],
    ['an unknown trigger', '?trigger=cron', 'trigger'],
    ['a createdAfter that is not a time', '?createdAfter=yesterday', 'createdAfter'],
    ['a negative createdBefore', '?createdBefore=-5', 'createdBefore'],
  ])('rejects %s with a 400 naming the field', async (_case, query, field) => {
    const res = await get(`/executions${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(field);
  });
});
