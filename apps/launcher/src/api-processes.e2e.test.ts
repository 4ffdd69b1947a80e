import { testDatabaseUrl } from '@botfleet/db/testing';
import {
  connectionHolders,
  isRunning,
  listProcesses,
  testRedisUrl,
  uniqueQueuePrefix,
  waitUntil,
} from '@botfleet/testkit';
import { randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sample, startRoleProcess, type RoleProcess } from './testing/role-process';

/*
 * API_PROCESSES=2 with the api role only: the launcher (the primary) forks two API processes
 * that share PORT. Which process holds each connection is read from the kernel (/proc), the sum
 * from the primary's /metrics; a killed API process is replaced while a request loop goes on.
 * The shared test database and Redis are enough: the api role consumes no queue.
 */
let service: RoleProcess;
let apiPort: number;
let dataDir: string;
const launchers: RoleProcess[] = [];
const HEALTHZ = 'botfleet_http_requests_total{method="GET",route="/healthz",status="200"}';

/** A launcher with the api role in two API processes, ready. */
async function startTwoApiProcesses(): Promise<RoleProcess> {
  const launcher = await startRoleProcess({
    ...process.env,
    DATABASE_URL: testDatabaseUrl(),
    REDIS_URL: testRedisUrl(),
    QUEUE_PREFIX: uniqueQueuePrefix('test-api-processes'),
    SECRETS_KEY: randomBytes(32).toString('hex'),
    DATA_DIR: dataDir,
    ROLES: 'api',
    API_PROCESSES: '2',
    PORT: '0',
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_SECONDS: '10',
  });
  launchers.push(launcher);
  await waitUntil(async () => (await launcher.get('/readyz')).status === 200, {
    timeoutMs: 60_000,
    intervalMs: 250,
    message: 'the API processes never became ready',
  });
  return launcher;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'botfleet-api-processes-'));
  service = await startTwoApiProcesses();
  apiPort = Number(/API listening on http:\/\/localhost:(\d+)/.exec(service.output())![1]);
}, 90_000);

afterAll(() => {
  for (const launcher of launchers) {
    if (launcher.child.exitCode === null && launcher.child.signalCode === null) launcher.signalGroup('SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
});

/** The launcher's own children running the launcher: its API processes (tsx's esbuild is another child). */
const apiProcessPids = (launcher = service) =>
  listProcesses()
    .filter((p) => p.ppid === launcher.child.pid && p.state !== 'Z' && /launcher\/src\/main\.ts/.test(p.command))
    .map((p) => p.pid);

const shutdownLines = (launcher: RoleProcess) => launcher.output().split('"msg":"shutting down"').length - 1;

/** GET /healthz on the API port on a connection of its own; true for a 200 within 5 s. */
function healthz(agent: Agent | false = false): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port: apiPort, path: '/healthz', agent, timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

const healthzServed = async () => sample((await service.get('/metrics')).text, HEALTHZ) ?? 0;

/** Sends `count` requests, each on a fresh connection, and checks the primary's /metrics counts each once. */
async function expectEachRequestCountedOnce(count: number): Promise<void> {
  const before = await healthzServed();
  for (let i = 0; i < count; i++) expect(await healthz()).toBe(true);
  expect(await healthzServed()).toBe(before + count);
}

it('serves one port from two processes, and the primary’s /metrics sums them', async () => {
  const pids = apiProcessPids();
  expect(pids).toHaveLength(2);
  expect(pids).not.toContain(service.child.pid);

  // Connections held open at once are handed out in turn: each API process holds some.
  const agent = new Agent({ keepAlive: true, maxSockets: 6 });
  try {
    expect(await Promise.all(Array.from({ length: 6 }, () => healthz(agent)))).toEqual(Array(6).fill(true));
    const holders = connectionHolders(apiPort, [service.child.pid!, ...pids]);
    expect([...holders.keys()].sort()).toEqual([...pids].sort());
  } finally {
    agent.destroy();
  }
  // Requests spread over both, so a sum that missed one process would come up short.
  await expectEachRequestCountedOnce(10);
  // The queue depth is read from the one Redis by every process, and reported once, not summed.
  const metrics = (await service.get('/metrics')).text;
  expect(sample(metrics, 'botfleet_queue_jobs{queue="executions",state="waiting"}')).toBe(0);
  expect(metrics.match(/^botfleet_queue_jobs\{queue="executions",state="waiting"\}/gm)).toHaveLength(1);
}, 60_000);

it('replaces a killed API process while the port keeps answering', async () => {
  const [killed, survivor] = apiProcessPids();
  let stopLoop = false;
  // Each request with the time it was sent: one sent to the killed process fails only after its
  // 5 s timeout, when the replacement may already listen.
  const outcomes: { sentAt: number; ok: boolean }[] = [];
  const loop = (async () => {
    while (!stopLoop) {
      const sentAt = Date.now();
      outcomes.push({ sentAt, ok: await healthz() });
    }
  })();
  const failures = () => outcomes.filter((o) => !o.ok).length;
  try {
    await waitUntil(() => outcomes.length - failures() >= 5, { timeoutMs: 20_000, message: 'the loop never ran' });
    process.kill(killed!, 'SIGKILL');
    const replaced = await waitUntil(
      () => {
        const pids = apiProcessPids();
        const fresh = pids.find((pid) => pid !== killed && pid !== survivor);
        return pids.length === 2 && fresh && service.output().split('"msg":"API process listening"').length === 4
          ? fresh
          : null;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: 'the killed API process was never replaced' },
    );
    expect(isRunning(killed!)).toBe(false);
    const replacedAt = Date.now();
    const sentSince = () => outcomes.filter((o) => o.sentAt >= replacedAt);
    await waitUntil(() => sentSince().length >= 20, { timeoutMs: 30_000 });
    stopLoop = true;
    await loop;
    // One request at a time: the killed process can have held at most the one in flight, and one
    // connection handed to it before the primary saw it die.
    expect(failures()).toBeLessThanOrEqual(2);
    expect(sentSince().every((o) => o.ok)).toBe(true);
    expect(service.output()).toContain('"msg":"API process exited; starting a replacement"');
    // Ready again once the replacement answers the primary's readiness question.
    await waitUntil(async () => (await service.get('/readyz')).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'the primary never became ready again',
    });
    expect(apiProcessPids().sort()).toEqual([replaced, survivor].sort());
    await expectEachRequestCountedOnce(10);
  } finally {
    stopLoop = true;
    await loop;
  }
}, 120_000);

it('drains every API process when the primary alone is told to stop, as an orchestrator does, and exits 0', async () => {
  const pids = apiProcessPids();
  expect(await service.terminate()).toBe(0);
  for (const pid of pids) expect(isRunning(pid)).toBe(false);
  expect(shutdownLines(service)).toBe(3);
}, 60_000);

it('counts a stop sent to the whole process group once in each process', async () => {
  const launcher = await startTwoApiProcesses();
  const pids = apiProcessPids(launcher);
  expect(pids).toHaveLength(2);
  // Each API process hears it twice: the signal itself and its primary's drain request.
  launcher.signalGroup('SIGTERM');
  expect(await launcher.exited).toBe(0);
  for (const pid of pids) expect(isRunning(pid)).toBe(false);
  expect(shutdownLines(launcher)).toBe(3);
  expect(launcher.output()).not.toContain('second stop signal');
}, 120_000);
