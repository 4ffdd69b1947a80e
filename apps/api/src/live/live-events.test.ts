import { redisSettingsFromUrl, type StepResult } from '@botfleet/core';
import { writeProgress, type PrismaClient } from '@botfleet/db';
import {
  claimExecution,
  completeExecution,
  publishRunChanges,
  requeueExecution,
  type AttemptRef,
  type EngineDeps,
} from '@botfleet/engine';
import { testRedisUrl, waitUntil } from '@botfleet/testkit';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import request from 'supertest';
import { createApp } from '../app';
import { startApi } from '../start-api';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';
import { openEventStream, type EventStreamReader, type ReceivedEvent } from '../testing/event-stream';
import { startLiveEvents } from './start-live-events';

/*
 * The live streams through HTTP on real PostgreSQL and Redis. Runs are driven by the engine's
 * own commands and the worker's progress write (writeProgress, then its notice), so each test
 * decides exactly when a step or a log line lands.
 */

let h: ApiHarness;
let org: TestOrg;
let engine: EngineDeps;
let base: string;
const streams: EventStreamReader[] = [];

beforeAll(async () => {
  // The fan-out test opens 501 streams with one key: far past the default caps on open streams.
  h = await createApiHarness({ maxStreamsPerOrg: 1_000, maxStreamsPerKey: 1_000 });
  org = await h.newOrg();
  engine = { db: h.db, queues: h.queues, logger: h.deps.logger };
  base = `http://127.0.0.1:${(await h.listen()).port}/api/v1`;
});
afterEach(() => {
  for (const stream of streams.splice(0)) stream.close();
});
afterAll(() => h.close());

async function open(path: string, o: TestOrg = org, headers: Record<string, string> = {}, at = base) {
  const stream = await openEventStream(`${at}${path}`, { ...o.auth('read'), ...headers });
  streams.push(stream);
  return stream;
}

/** A triggered run claimed as a worker would: attempt 1, running. */
async function startRun(o: TestOrg = org): Promise<AttemptRef> {
  const botId = await h.newBot(o);
  const res = await request(h.app).post(`/api/v1/bots/${botId}/executions`).set(o.auth('write')).send({});
  const claim = await claimExecution(engine, res.body.executionId);
  if (claim.kind !== 'claimed') throw new Error(`not claimed: ${claim.kind}`);
  return { executionId: claim.run.id, organizationId: o.id, botId, attempt: claim.run.attempt };
}

const step = (index: number): StepResult => ({
  index,
  action: 'goto',
  status: 'completed',
  data: { n: index },
  error: null,
  startedAt: Date.now(),
  durationMs: 5,
});
const line = (message: string, attempt = 1) => ({
  timestamp: Date.now(),
  level: 'info' as const,
  source: 'runner' as const,
  message,
  attempt,
});

/** The worker's periodic flush: the rows, then the notice. */
async function progress(run: AttemptRef, steps: number[], logs: string[]): Promise<void> {
  await writeProgress(h.db, run, {
    steps: steps.map(step),
    logs: logs.map((m) => line(m, run.attempt)),
    artifacts: [],
  });
  await publishRunChanges(engine, [{ ...run, status: 'running', changed: ['steps', 'logs'] }]);
}

const complete = (run: AttemptRef) =>
  completeExecution(engine, run, { status: 'completed', data: { ok: true } }, { steps: [], logs: [], artifacts: [] });

/** Events as a compact trail: `status:running`, `step:0`, `log:hello`, `end:completed`. */
function trail(events: ReceivedEvent[]): string[] {
  return events.map(({ event, data }) => {
    const d = data as { status?: string; index?: number; message?: string };
    return `${event}:${event === 'step' ? d.index : event === 'log' ? d.message : d.status}`;
  });
}

describe('GET /executions/:executionId/events', () => {
  it('streams status, every step and log as it lands, then the end, and closes', async () => {
    const run = await startRun();
    const stream = await open(`/executions/${run.executionId}/events`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    expect(stream.headers.get('content-encoding')).toBeNull();
    await stream.waitFor(1);
    await progress(run, [0], ['opened']);
    await stream.waitFor(3);
    await progress(run, [1, 2], ['clicked']);
    await stream.waitFor(6);
    await complete(run);
    await stream.ended;
    expect(trail(stream.events)).toEqual([
      'status:running',
      'step:0',
      'log:opened',
      'step:1',
      'step:2',
      'log:clicked',
      'status:completed',
      'end:completed',
    ]);
    expect(stream.events[1]!.data).toMatchObject({ index: 0, action: 'goto', data: { n: 0 }, attempt: 1 });
    // Every event has an id of its own: a client resuming from the final status still gets the end.
    expect(new Set(stream.events.map((e) => e.id)).size).toBe(stream.events.length);
    const finalStatusId = stream.events.at(-2)!.id;
    const resumed = await open(`/executions/${run.executionId}/events`, org, { 'Last-Event-ID': finalStatusId });
    await resumed.ended;
    expect(trail(resumed.events)).toEqual(['end:completed']);
    expect(resumed.events[0]!.id).toBe(stream.events.at(-1)!.id);
  });

  it('resumes from Last-Event-ID with nothing missed and nothing twice', async () => {
    const run = await startRun();
    const first = await open(`/executions/${run.executionId}/events`);
    await progress(run, [0], ['a']);
    await first.waitFor(3);
    first.close();
    const lastId = first.events.at(-1)!.id;
    // While nobody listens.
    await progress(run, [1], ['b']);
    const second = await open(`/executions/${run.executionId}/events`, org, { 'Last-Event-ID': lastId });
    await second.waitFor(2);
    await progress(run, [2], ['c']);
    await second.waitFor(4);
    await complete(run);
    await second.ended;
    expect(trail([...first.events, ...second.events])).toEqual([
      'status:running',
      'step:0',
      'log:a',
      'step:1',
      'log:b',
      'step:2',
      'log:c',
      'status:completed',
      'end:completed',
    ]);
    // The query form, for clients that cannot set headers, gives the same events (a replay
    // groups them by read: its steps before its logs).
    const replay = await open(`/executions/${run.executionId}/events?lastEventId=${encodeURIComponent(lastId)}`);
    await replay.ended;
    expect(trail(replay.events).sort()).toEqual(trail(second.events).sort());
  });

  it('replays a run that already ended, then ends', async () => {
    const run = await startRun();
    await progress(run, [0, 1], ['x']);
    await complete(run);
    const stream = await open(`/executions/${run.executionId}/events`);
    await stream.ended;
    expect(trail(stream.events)).toEqual(['status:completed', 'step:0', 'step:1', 'log:x', 'end:completed']);
  });

  it('announces a new attempt before its steps, which start again at 0', async () => {
    const run = await startRun();
    const stream = await open(`/executions/${run.executionId}/events`);
    await progress(run, [0, 1], ['try 1']);
    await stream.waitFor(4);
    const retryNow = { kind: 'retryAttempt', ms: 0 } as const;
    expect(await requeueExecution(engine, run, retryNow)).toEqual(retryNow);
    await stream.waitFor(5);
    const claim = await claimExecution(engine, run.executionId);
    if (claim.kind !== 'claimed') throw new Error(claim.kind);
    const second = { ...run, attempt: claim.run.attempt };
    await progress(second, [0], ['try 2']);
    await stream.waitFor(8);
    await complete(second);
    await stream.ended;
    expect(trail(stream.events)).toEqual([
      'status:running',
      'step:0',
      'step:1',
      'log:try 1',
      'status:pending',
      'status:running',
      'step:0',
      'log:try 2',
      'status:completed',
      'end:completed',
    ]);
    expect(stream.events.filter((e) => e.event === 'step').map((e) => (e.data as { attempt: number }).attempt)).toEqual(
      [1, 1, 2],
    );
    expect(stream.events[5]!.data).toMatchObject({ status: 'running', attempt: 2 });
  });

  it('answers another organization’s run, an id that cannot exist and a foreign event id with the envelope', async () => {
    const run = await startRun();
    const stranger = await h.newOrg();
    const get = (path: string, o = org) => request(h.app).get(`/api/v1${path}`).set(o.auth('read'));
    for (const res of [
      await get(`/executions/${run.executionId}/events`, stranger),
      await get('/executions/exe_nope/events'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    for (const id of ['1.2.3', 'abc', '1.2.3.9', `1.2.${'9'.repeat(20)}.1`]) {
      const res = await get(`/executions/${run.executionId}/events`).set('Last-Event-ID', id);
      expect({ id, status: res.status, code: res.body.error?.code }).toEqual({
        id,
        status: 400,
        code: 'validation_error',
      });
    }
    expect((await get(`/executions/${run.executionId}/events?since=1`)).status).toBe(400);
    expect((await request(h.app).get(`/api/v1/executions/${run.executionId}/events`)).status).toBe(401);
  });
});

describe('GET /executions/events', () => {
  it('streams the organization’s status changes, filtered, and never another organization’s', async () => {
    const stranger = await h.newOrg();
    const all = await open('/executions/events');
    const ended = await open('/executions/events?status=completed,failed');
    await waitUntil(() => all.comments >= 0);
    const run = await startRun();
    const foreign = await startRun(stranger);
    const only = await open(`/executions/events?botId=${run.botId}`);
    await complete(foreign);
    await complete(run);
    await all.waitFor((events) => events.some((e) => (e.data as { status: string }).status === 'completed'));
    await only.waitFor(1);
    await ended.waitFor(1);
    const ids = (s: EventStreamReader) => [
      ...new Set(s.events.map((e) => (e.data as { executionId: string }).executionId)),
    ];
    expect(ids(all)).toEqual([run.executionId]);
    expect(trail(all.events)).toEqual(['status:pending', 'status:running', 'status:completed']);
    expect(trail(ended.events)).toEqual(['status:completed']);
    expect(trail(only.events)).toEqual(['status:completed']);
    expect(all.events.at(-1)).toMatchObject({
      id: expect.stringMatching(/^\d+\.exe_/),
      data: {
        executionId: run.executionId,
        botId: run.botId,
        status: 'completed',
        attempt: 1,
        updatedAt: expect.any(Number),
      },
    });
  });

  it('catches up from Last-Event-ID, at least once, with the runs changed since', async () => {
    const first = await startRun();
    const stream = await open('/executions/events');
    await complete(first);
    await stream.waitFor(1);
    stream.close();
    const missed = await startRun();
    await complete(missed);
    const resumed = await open('/executions/events', org, { 'Last-Event-ID': stream.events.at(-1)!.id });
    await resumed.waitFor((events) =>
      events.some((e) => (e.data as { executionId: string }).executionId === missed.executionId),
    );
    expect(
      resumed.events.find((e) => (e.data as { executionId: string }).executionId === missed.executionId)?.data,
    ).toMatchObject({
      status: 'completed',
    });
  });

  it('answers bad filters and event ids with the envelope', async () => {
    const get = (path: string) => request(h.app).get(`/api/v1${path}`).set(org.auth('read'));
    for (const path of [
      '/executions/events?status=done',
      '/executions/events?status=completed,',
      `/executions/events?botId=${'x'.repeat(65)}`,
      '/executions/events?limit=5',
      '/executions/events?lastEventId=yesterday',
    ]) {
      const res = await get(path);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 400,
        code: 'validation_error',
      });
    }
    const res = await get('/executions/events').set('Last-Event-ID', '12.bot_x');
    expect(res.status).toBe(400);
  });
});

describe('fan-out', () => {
  const CLIENTS = 500;

  /** heap after a full collection, in bytes. */
  function heapAfterGc(): number {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  }

  it(`serves ${CLIENTS} clients of one run with the database reads of one, and forgets them when they leave`, async () => {
    // The process's queries, counted at the client every read goes through.
    let queries = 0;
    const counting = h.db.$extends({
      query: {
        async $allOperations({ args, query }) {
          queries++;
          return query(args);
        },
      },
    }) as unknown as PrismaClient;
    const live = startLiveEvents({
      db: counting,
      logger: h.deps.logger,
      settings: h.deps.settings,
      redis: redisSettingsFromUrl(testRedisUrl()),
      queuePrefix: h.queues.prefix,
    });
    const server: Server = createServer(createApp({ ...h.deps, db: counting, liveEvents: live.live }));
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    const at = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    try {
      const run = await startRun();
      const path = `/executions/${run.executionId}/events`;

      /**
       * Queries made while `rounds` progress writes (steps `from`...) reach every one of `clients`,
       * each of which has caught up to the status and the `from` steps before.
       */
      async function readsFor(clients: EventStreamReader[], rounds: number, from: number): Promise<number> {
        // One probe for all of them: 500 pollers of their own would load a small machine.
        const allHave = (count: number) =>
          waitUntil(() => clients.every((c) => c.events.length >= count), {
            timeoutMs: 60_000,
            message: `every client to have ${count} events`,
          });
        await allHave(1 + from);
        const before = queries;
        for (let i = 0; i < rounds; i++) {
          await progress(run, [from + i], []);
          // One at a time: each write is its own notice and read, as a worker's flushes are.
          await allHave(1 + from + i + 1);
        }
        return queries - before;
      }

      const baseline = heapAfterGc();
      const one = [await open(path, org, {}, at)];
      const readsOfOne = await readsFor(one, 5, 0);

      const many: EventStreamReader[] = [];
      for (let i = 0; i < CLIENTS; i++) many.push(await open(path, org, {}, at));
      expect(live.live.stats()).toMatchObject({ runs: 1 });
      const readsOfMany = await readsFor([...one, ...many], 5, 5);
      // One read per change, whatever the number of clients (a read may answer two notices).
      expect(readsOfOne).toBeLessThanOrEqual(5);
      expect(readsOfMany).toBeLessThanOrEqual(readsOfOne);
      const everything = ['status:running', ...Array.from({ length: 10 }, (_, i) => `step:${i}`)];
      for (const client of [...one, ...many]) expect(trail(client.events)).toEqual(everything);

      for (const client of [...one, ...many]) client.close();
      await waitUntil(() => live.live.stats().runClients === 0 && live.live.stats().runs === 0, {
        message: 'the clients were never forgotten',
      });
      // Gone clients cost nothing: a change reads nothing.
      const idle = queries;
      await progress(run, [10], []);
      await waitUntil(async () => (await h.db.stepOutput.count({ where: { executionId: run.executionId } })) === 11);
      expect(queries).toBe(idle);
      streams.splice(0);
      await waitUntil(() => heapAfterGc() < baseline + 16 * 1024 * 1024, {
        timeoutMs: 30_000,
        message: `heap did not come back near ${baseline} bytes`,
      });
    } finally {
      await live.stop();
      await new Promise<void>((done) => server.close(() => done()));
    }
  }, 180_000);

  it('ends open streams at once when the API stops, so they never hold its drain', async () => {
    const api = await startApi({
      db: h.db,
      redis: redisSettingsFromUrl(testRedisUrl()),
      queuePrefix: h.queues.prefix,
      logger: h.deps.logger,
      secretBox: h.deps.secretBox,
      port: 0,
      settings: h.deps.settings,
    });
    const at = `http://127.0.0.1:${api.port}/api/v1`;
    const run = await startRun();
    const runStream = await open(`/executions/${run.executionId}/events`, org, {}, at);
    const orgStream = await open('/executions/events', org, {}, at);
    await runStream.waitFor(1);
    const started = Date.now();
    await api.stop();
    await Promise.all([runStream.ended, orgStream.ended]);
    // Well inside the keep-alive timeout (5 s) that an idle socket would otherwise hold the close.
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('sends heartbeats on every open stream', async () => {
    const fast = await createApiHarness({ sseHeartbeatSeconds: 1 }, { queuePrefix: h.queues.prefix });
    try {
      const at = `http://127.0.0.1:${(await fast.listen()).port}/api/v1`;
      const stream = await open('/executions/events', org, {}, at);
      await waitUntil(() => stream.comments >= 2, { message: 'no heartbeats' });
    } finally {
      await fast.close();
    }
  });
});
