import { redisSettingsFromUrl } from '@botfleet/core';
import { createTestDatabase, type TestDatabase } from '@botfleet/db/testing';
import { closeRedis, createQueues, createRedisConnection, executionRun, type Queues } from '@botfleet/queue';
import { processTree, startRedisServer, uniqueQueuePrefix, waitUntil, type RedisServer } from '@botfleet/testkit';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sample, startRoleProcess, type RoleProcess } from './testing/role-process';

/*
 * Each role in a process of its own, as in a deployment: its ops port answers liveness,
 * readiness and metrics, and readiness follows what the role needs (Redis for all, the browser
 * for the worker). Redis here is a redis-server of this file's own, so it can be taken away.
 */
const ROLES = ['api', 'worker', 'delivery', 'scheduler'] as const;
type RoleName = (typeof ROLES)[number];

let redis: RedisServer;
let database: TestDatabase;
let dir: string;
let marker: string;
const prefix = uniqueQueuePrefix('test-ops');
const roles = {} as Record<RoleName, RoleProcess>;

beforeAll(async () => {
  [redis, database] = await Promise.all([startRedisServer(), createTestDatabase({ migrated: true })]);
  dir = mkdtempSync(join(tmpdir(), 'botfleet-ops-'));
  // Chromium runs only while the marker exists: removing it and killing the browser takes the
  // browser away for good, as a broken or missing install would.
  marker = join(dir, 'browser-available');
  writeFileSync(marker, '');
  const chromium = join(dir, 'chromium.sh');
  writeFileSync(chromium, `#!/bin/sh\n[ -f '${marker}' ] || exit 1\nexec /usr/bin/chromium "$@"\n`);
  chmodSync(chromium, 0o755);
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: prefix,
    SECRETS_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: dir,
    CHROMIUM_PATH: chromium,
    PORT: '0',
    LOG_LEVEL: 'silent',
    SHUTDOWN_GRACE_SECONDS: '6',
    WORKER_CONCURRENCY: '1',
  };
  const started = await Promise.all(ROLES.map(async (role) => startRoleProcess({ ...env, ROLES: role })));
  ROLES.forEach((role, i) => (roles[role] = started[i]!));
}, 60_000);

afterAll(async () => {
  for (const role of Object.values(roles)) if (role.child.exitCode === null) role.child.kill('SIGKILL');
  await redis?.stop();
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const readiness = async (role: RoleName) => roles[role].get('/readyz');

it('serves health, readiness and metrics on each role’s ops port', async () => {
  for (const role of ROLES) {
    expect(await roles[role].get('/healthz')).toMatchObject({ status: 200, json: { status: 'ok' } });
    const ready = await waitUntil(async () => ((await readiness(role)).status === 200 ? readiness(role) : null), {
      timeoutMs: 30_000,
      message: `${role} never became ready`,
    });
    const expected: Record<string, string> = { database: 'ok', redis: 'ok', started: 'ok' };
    if (role === 'worker') expected.browser = 'ok';
    expect(ready.json).toEqual({ status: 'ok', checks: expected });
    const metrics = await roles[role].get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('process_resident_memory_bytes');
    expect(metrics.text).toContain('# TYPE botfleet_executions_running gauge');
    expect(metrics.text).toContain('# TYPE botfleet_schedule_lag_seconds histogram');
  }
  // Each consumer reports its own queue; the api, producing into all, reports every queue.
  const depth = (role: RoleName, queue: string) =>
    roles[role].get('/metrics').then((m) => sample(m.text, `botfleet_queue_jobs{queue="${queue}",state="waiting"}`));
  expect(await depth('worker', 'executions')).toBe(0);
  expect(await depth('delivery', 'deliveries')).toBe(0);
  expect(await depth('scheduler', 'schedules')).toBe(0);
  for (const queue of ['executions', 'deliveries', 'schedules']) expect(await depth('api', queue)).toBe(0);
  expect(await depth('worker', 'deliveries')).toBeUndefined();
  expect((await roles.api.get('/nope')).status).toBe(404);
}, 60_000);

it('reports a paused queue’s backlog and the age of its oldest job, and follows it down', async () => {
  const connection = createRedisConnection(redisSettingsFromUrl(redis.url), 'producer');
  const queues: Queues = createQueues(connection, prefix);
  const metric = async (series: string) => sample((await roles.worker.get('/metrics')).text, series);
  try {
    const queue = queues.get(executionRun.queue);
    await queue.pause();
    // No such executions: once resumed, the worker claims nothing and the jobs just end.
    for (let i = 0; i < 3; i++) await executionRun.enqueue(queues, { executionId: `exe_ops_${prefix}_${i}` });
    await waitUntil(async () => (await metric('botfleet_queue_jobs{queue="executions",state="waiting"}')) === 3, {
      timeoutMs: 10_000,
      message: 'the backlog never showed',
    });
    await waitUntil(async () => (await metric('botfleet_queue_oldest_waiting_seconds{queue="executions"}'))! >= 0.5, {
      timeoutMs: 10_000,
      message: 'the oldest job never aged',
    });
    await queue.resume();
    await waitUntil(async () => (await metric('botfleet_queue_jobs{queue="executions",state="waiting"}')) === 0, {
      timeoutMs: 20_000,
      message: 'the backlog never drained',
    });
    expect(await metric('botfleet_queue_oldest_waiting_seconds{queue="executions"}')).toBe(0);
  } finally {
    await queues.close();
    await closeRedis(connection);
  }
}, 60_000);

it('makes the worker unready while its browser is gone, and counts the restart once it is back', async () => {
  const worker = roles.worker;
  const browsers = () =>
    processTree(worker.child.pid!).filter((p) => p.pid !== worker.child.pid && /chrom/i.test(p.command));
  await waitUntil(() => browsers().length > 0, { timeoutMs: 10_000, message: 'no Chromium under the worker' });
  rmSync(marker);
  for (const browser of browsers()) process.kill(browser.pid, 'SIGKILL');
  const unready = await waitUntil(
    async () => ((await readiness('worker')).status === 503 ? readiness('worker') : null),
    {
      timeoutMs: 15_000,
      message: 'the worker stayed ready without a browser',
    },
  );
  expect(unready.json).toMatchObject({ error: { code: 'unavailable', details: { browser: 'down', redis: 'ok' } } });
  expect((await worker.get('/healthz')).status).toBe(200);

  writeFileSync(marker, '');
  await waitUntil(async () => (await readiness('worker')).status === 200, {
    timeoutMs: 20_000,
    message: 'the worker never became ready again',
  });
  const metrics = (await worker.get('/metrics')).text;
  expect(sample(metrics, 'botfleet_browser_restarts_total{reason="disconnected"}')).toBe(1);
}, 60_000);

it('makes every role unready while Redis is gone, ready again when it is back, and drains on SIGTERM', async () => {
  await redis.stop();
  for (const role of ROLES) {
    const unready = await waitUntil(async () => ((await readiness(role)).status === 503 ? readiness(role) : null), {
      timeoutMs: 15_000,
      message: `${role} stayed ready without Redis`,
    });
    expect(unready.json).toMatchObject({ error: { code: 'unavailable', details: { redis: 'down', database: 'ok' } } });
    expect((await roles[role].get('/healthz')).status).toBe(200);
  }

  await redis.restart();
  for (const role of ROLES) {
    await waitUntil(async () => (await readiness(role)).status === 200, {
      timeoutMs: 30_000,
      message: `${role} never became ready again`,
    });
  }

  const started = Date.now();
  const codes = await Promise.all(ROLES.map((role) => roles[role].terminate()));
  expect(codes).toEqual([0, 0, 0, 0]);
  // Exit code 0 already says no role hit the grace deadline; this allows a loaded machine's exits.
  expect(Date.now() - started).toBeLessThan(6_000 + 10_000);
}, 90_000);
