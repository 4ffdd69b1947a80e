import { redisSettingsFromUrl } from '@botfleet/core';
import { createTestBot, createTestExecution } from '@botfleet/db/testing';
import { createLogger } from '@botfleet/io';
import { streamSlotKeys } from '@botfleet/queue';
import { testRedisUrl, waitUntil } from '@botfleet/testkit';
import { request as httpRequest, type ClientRequest } from 'node:http';
import { startApi } from '../start-api';
import { createApiHarness, type ApiHarness, type TestOrg } from '../testing/api-harness';
import { parseOpenFileLimit, processStreamCap } from './process-stream-cap';
import { createStreamSlots, type StreamHolder } from './stream-slots';

/* The caps on streams open at once (docs/live-runs.md, docs/security.md): per organization and per key
   across API processes (429), per process (503), while every other route and organization keeps answering. */

let h: ApiHarness;
/** Two API servers on one Redis prefix: two processes of one fleet, each with slots of its own. */
let ports: number[];
const opened: OpenStream[] = [];

beforeAll(async () => {
  h = await createApiHarness(); // the default caps: 100 per organization, 50 per key
  ports = [(await h.listen()).port, (await h.listen()).port];
});
afterEach(() => {
  for (const stream of opened.splice(0)) stream.close();
});
afterAll(() => h.close());

interface OpenStream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** A refusal's JSON envelope; null for a stream (its body never ends). */
  body: { error?: { code: string; details?: Record<string, unknown> } } | null;
  close(): void;
}

/**
 * A raw GET on a connection of its own, as a client that holds many streams would send it: a
 * stream resolves at its headers and stays open until close(); any other answer is read whole.
 */
function get(port: number, path: string, auth: { Authorization: string }): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: `/api/v1${path}`,
        headers: { ...auth, Accept: 'text/event-stream' },
        agent: false,
      },
      (res) => {
        const close = () => req.destroy();
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          const stream = { status: res.statusCode ?? 0, headers: res.headers, body: null, close };
          opened.push(stream);
          res.on('error', () => undefined);
          resolve(stream);
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          close();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(text) as OpenStream['body'],
            close,
          });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** `count` requests, `concurrency` at a time, spread over both API processes. */
async function getMany(count: number, path: string, auth: { Authorization: string }): Promise<OpenStream[]> {
  const answers: OpenStream[] = [];
  const concurrency = 100;
  for (let start = 0; start < count; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - start) }, (_, i) =>
      get(ports[(start + i) % ports.length]!, path, auth),
    );
    answers.push(...(await Promise.all(batch)));
  }
  return answers;
}

const slotsOfKey = (org: TestOrg, keyId: string) =>
  h.deps.redis.zcard(streamSlotKeys(h.queues.prefix, { organizationId: org.id, keyId }).key);
const slotsOfOrganization = (org: TestOrg) =>
  h.deps.redis.zcard(streamSlotKeys(h.queues.prefix, { organizationId: org.id, keyId: '' }).organization);

async function keyIdOf(org: TestOrg, permission: 'read' | 'write' | 'admin'): Promise<string> {
  const row = await h.db.apiKey.findFirstOrThrow({ where: { organizationId: org.id, name: permission } });
  return row.id;
}

function expectRefused(answer: OpenStream, status: number, code: string): void {
  expect(answer.status).toBe(status);
  expect(answer.body?.error?.code).toBe(code);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
}

it('refuses 1,950 of 2,000 streams of one key across two API processes, while another organization is served', async () => {
  const noisy = await h.newOrg();
  const other = await h.newOrg();
  const answers = await getMany(2_000, '/executions/events', noisy.auth('read'));
  const streams = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  expect(streams.length).toBe(50);
  expect(refused.length).toBe(1_950);
  for (const answer of refused) expectRefused(answer, 429, 'rate_limited');
  expect(refused[0]!.body?.error?.details).toMatchObject({ limit: 'api_key', maxOpenStreams: 50 });
  expect(await slotsOfKey(noisy, await keyIdOf(noisy, 'read'))).toBe(50);

  // Another organization, on either process: its requests and its streams are answered.
  for (const port of ports) {
    expect((await get(port, '/bots', other.auth('read'))).status).toBe(200);
    expect((await get(port, '/executions/events', other.auth('read'))).status).toBe(200);
  }

  // Streams that close free their slots, fleet-wide: exactly as many new ones fit.
  for (const stream of streams.slice(0, 10)) stream.close();
  const keyId = await keyIdOf(noisy, 'read');
  await waitUntil(async () => (await slotsOfKey(noisy, keyId)) === 40, {
    message: 'the closed streams kept their slots',
  });
  const again = await getMany(11, '/executions/events', noisy.auth('read'));
  expect(again.filter((a) => a.status === 200)).toHaveLength(10);
  expect(again.filter((a) => a.status === 429)).toHaveLength(1);
}, 120_000);

it('caps the organization, all its keys and both stream routes together', async () => {
  const org = await h.newOrg();
  const bot = await createTestBot(h.db, org.id);
  const run = await createTestExecution(h.db, { botId: bot.id, organizationId: org.id });
  // 50 organization streams with the read key, 50 run streams with the write key: the organization's 100.
  const read = await getMany(50, '/executions/events', org.auth('read'));
  const write = await getMany(50, `/executions/${run.id}/events`, org.auth('write'));
  expect([...read, ...write].every((a) => a.status === 200)).toBe(true);
  expect(await slotsOfOrganization(org)).toBe(100);
  // The admin key has none of its own open, yet the organization is full, on either route.
  for (const path of ['/executions/events', `/executions/${run.id}/events`]) {
    const refused = await get(ports[1]!, path, org.auth('admin'));
    expectRefused(refused, 429, 'rate_limited');
    expect(refused.body?.error?.details).toMatchObject({ limit: 'organization', maxOpenStreams: 100 });
  }
  // A run stream the loader refuses (404) never takes a slot.
  const missing = await get(ports[0]!, '/executions/exe_0000000000000000000000/events', org.auth('admin'));
  expect(missing.status).toBe(404);
}, 120_000);

it('stops one API process taking streams at its own cap with 503, while it answers every other route', async () => {
  const capped = await h.listen({ maxStreamsPerProcess: 3 });
  const first = await h.newOrg();
  const second = await h.newOrg();
  const streams = await Promise.all([1, 2, 3].map(() => get(capped.port, '/executions/events', first.auth('read'))));
  expect(streams.map((s) => s.status)).toEqual([200, 200, 200]);
  // Process-wide: any organization's next stream is refused here ...
  expectRefused(await get(capped.port, '/executions/events', second.auth('read')), 503, 'unavailable');
  // ... while a plain request is answered, and another process takes the stream.
  expect((await get(capped.port, '/bots', second.auth('read'))).status).toBe(200);
  expect((await get(ports[0]!, '/executions/events', second.auth('read'))).status).toBe(200);
  streams[0]!.close();
  await waitUntil(async () => (await get(capped.port, '/executions/events', second.auth('read'))).status === 200, {
    message: 'the closed stream never gave its process slot back',
  });
});

it('gives a slot back however its stream ends: the client leaves, the run ends, the API drains', async () => {
  const org = await h.newOrg();
  const keyId = await keyIdOf(org, 'read');
  const bot = await createTestBot(h.db, org.id);
  const ended = await createTestExecution(h.db, {
    botId: bot.id,
    organizationId: org.id,
    completed: { extractedData: {} },
  });
  const api = await startApi({
    db: h.db,
    redis: redisSettingsFromUrl(testRedisUrl()),
    queuePrefix: h.queues.prefix,
    logger: h.deps.logger,
    secretBox: h.deps.secretBox,
    port: 0,
    settings: h.deps.settings,
  });
  // An ended run is replayed, then its response ends: its slot goes with it.
  expect((await get(api.port, `/executions/${ended.id}/events`, org.auth('read'))).status).toBe(200);
  await waitUntil(async () => (await slotsOfKey(org, keyId)) === 0, { message: 'the ended run kept its slot' });
  const streams = await Promise.all([1, 2, 3].map(() => get(api.port, '/executions/events', org.auth('read'))));
  expect(await slotsOfKey(org, keyId)).toBe(3);
  streams[0]!.close();
  await waitUntil(async () => (await slotsOfKey(org, keyId)) === 2, { message: 'the closed stream kept its slot' });
  // The drain ends the other two and has released their slots by the time stop() returns.
  await api.stop();
  expect(await slotsOfKey(org, keyId)).toBe(0);
  expect(await slotsOfOrganization(org)).toBe(0);
});

describe('slots in Redis', () => {
  const logger = createLogger({ level: 'silent' });
  const limits = { perOrganization: 2, perKey: 2, perProcess: 100 };
  const holder = (): StreamHolder => ({ organizationId: `org_${Math.random()}`, keyId: `key_${Math.random()}` });

  it('ages out the slots of a process that died without releasing them', async () => {
    const who = holder();
    const keys = streamSlotKeys(h.queues.prefix, who);
    // What a crashed process leaves: two slots whose lease nobody renews, ending 10 s from now.
    const [seconds] = await h.deps.redis.time();
    const leaseEnd = Number(seconds) * 1000 + 10_000;
    for (const key of [keys.organization, keys.key])
      await h.deps.redis.zadd(key, leaseEnd, 'dead.1', leaseEnd, 'dead.2');
    const slots = createStreamSlots({ redis: h.deps.redis, prefix: h.queues.prefix, limits, logger });
    try {
      await expect(slots.acquire(who)).rejects.toMatchObject({ code: 'rate_limited' });
      const slot = await waitUntil(() => slots.acquire(who).catch(() => null), {
        timeoutMs: 60_000,
        message: 'the dead slots never expired',
      });
      expect(await h.deps.redis.zrange(keys.key, 0, -1)).not.toContain('dead.1');
      slot.release();
    } finally {
      await slots.close();
    }
  });

  it('renews the slots it holds, and ends a stream whose slot is found gone', async () => {
    const who = holder();
    const keys = streamSlotKeys(h.queues.prefix, who);
    const slots = createStreamSlots({ redis: h.deps.redis, prefix: h.queues.prefix, limits, logger, leaseMs: 900 });
    try {
      const kept = await slots.acquire(who);
      const dropped = await slots.acquire(who);
      const [id] = await h.deps.redis.zrange(keys.key, 0, 0);
      const firstLease = Number(await h.deps.redis.zscore(keys.key, id!));
      // Well past the 900 ms lease, the slot is still counted: its lease moved on.
      await waitUntil(async () => Number(await h.deps.redis.zscore(keys.key, id!)) > firstLease + 2_000, {
        message: 'the lease was never renewed',
      });
      let lost = false;
      dropped.onLost(() => (lost = true));
      const members = await h.deps.redis.zrange(keys.key, 0, -1);
      const droppedId = members.find((member) => member !== id)!;
      await h.deps.redis.zrem(keys.organization, droppedId);
      await waitUntil(() => lost, { message: 'the lost slot never ended its stream' });
      kept.release();
      dropped.release();
      await waitUntil(async () => (await h.deps.redis.zcard(keys.key)) === 0, { message: 'slots not released' });
    } finally {
      await slots.close();
    }
  });
});

describe('the process cap', () => {
  it('reads the soft open-file limit from /proc/self/limits', () => {
    const limits = [
      'Limit                     Soft Limit           Hard Limit           Units     ',
      'Max processes             63704                63704                processes ',
      'Max open files            1024                 524288               files     ',
    ].join('\n');
    expect(parseOpenFileLimit(limits)).toBe(1024);
    expect(parseOpenFileLimit('Max open files            unlimited            unlimited            files')).toBe(
      Number.POSITIVE_INFINITY,
    );
    expect(parseOpenFileLimit('Max processes 10 10 processes')).toBeNull();
  });

  it('keeps half the file descriptors, the pool and Redis connections for everything else', () => {
    expect(processStreamCap(1024, 10)).toBe(498);
    expect(processStreamCap(20_000, 10)).toBe(9_986);
    // A container's million, or no limit: bounded by memory, not descriptors.
    expect(processStreamCap(1_048_576, 10)).toBe(10_000);
    expect(processStreamCap(Number.POSITIVE_INFINITY, 10)).toBe(10_000);
    expect(processStreamCap(16, 10)).toBe(1);
  });
});
