import { createApiHarness, type ApiHarness, type TestOrg } from '@botfleet/api/testing';
import { findExecution, listExecutionLogs } from '@botfleet/db';
import { createTestDatabase, type TestDatabase } from '@botfleet/db/testing';
import {
  deletePrefixedKeys,
  isRunning,
  startFixtureServer,
  uniqueQueuePrefix,
  waitUntil,
  type FixtureServer,
} from '@botfleet/testkit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPEAT_WINDOW_MS } from './stop-signals';
import { serviceEnv, startRoleProcess, type RoleProcess, type StartCommand } from './testing/role-process';

/*
 * A stop signal sent to the whole process group of the service, as systemd's default KillMode, an
 * init that signals the group, or Ctrl-C in a terminal sends it. Under `npm start`, npm,
 * scripts/start.mjs and the launcher each get a copy and npm and start.mjs forward theirs, so the
 * launcher hears the one stop three times. The run in flight (an 8 s step on a loopback page)
 * must still finish within the grace period, and every process exit 0. A second signal from a
 * person, after the repeat window, stops the service at once.
 */
const GRACE_SECONDS = 30;
let database: TestDatabase;
let h: ApiHarness;
let org: TestOrg;
let site: FixtureServer;
let dataDir: string;
const prefix = uniqueQueuePrefix('test-signals');
const services: RoleProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ migrated: true });
  // Organizations, keys and bots through the API on the service's database and queues. The
  // database is the service's own because the service sweeps every organization's runs.
  h = await createApiHarness({}, { databaseUrl: database.url, queuePrefix: prefix });
  org = await h.newOrg();
  site = await startFixtureServer({ '/page': '<!doctype html><body><h1 id="title">Deployed</h1></body>' });
  dataDir = mkdtempSync(join(tmpdir(), 'botfleet-signals-'));
}, 60_000);

afterAll(async () => {
  for (const service of services) {
    if (service.child.exitCode === null && service.child.signalCode === null) service.signalGroup('SIGKILL');
  }
  await deletePrefixedKeys(h.deps.redis, prefix);
  await h.close();
  await site.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function startService(command: StartCommand): Promise<RoleProcess> {
  const env = {
    ...serviceEnv({ databaseUrl: database.url, queuePrefix: prefix, dataDir }),
    LOG_LEVEL: 'info',
    SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    WORKER_CONCURRENCY: '1',
  };
  const service = await startRoleProcess(env, command);
  services.push(service);
  await waitUntil(async () => (await service.get('/readyz')).status === 200, {
    timeoutMs: 60_000,
    intervalMs: 250,
    message: `${command} never became ready`,
  });
  return service;
}

/**
 * Triggers, through the service's own API, a run of a bot that waits `waitMs` on the fixture
 * page, and waits until the service's worker runs it.
 */
async function runInFlight(service: RoleProcess, waitMs: number): Promise<string> {
  const steps = [
    { action: 'waitFor', ms: waitMs },
    { action: 'extract', name: 'title', selector: '#title' },
  ];
  const botId = await h.newBot(org, { name: `waits ${waitMs} ms`, targetUrl: site.url('/page') }, { steps });
  const api = /API listening on (http:\/\/localhost:\d+)/.exec(service.output())![1]!;
  const res = await fetch(`${api}/api/v1/bots/${botId}/executions`, {
    method: 'POST',
    headers: { ...org.auth('write'), 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(202);
  const executionId = ((await res.json()) as { executionId: string }).executionId;
  await waitUntil(async () => (await row(executionId)).status === 'running', {
    timeoutMs: 60_000,
    message: 'the run never started',
  });
  return executionId;
}

const row = async (executionId: string) => (await findExecution(h.db, org.id, executionId))!;

/** The pid in the launcher's JSON log lines (npm and start.mjs do not log). */
function launcherPid(service: RoleProcess): number {
  const line = service
    .output()
    .split('\n')
    .find((l) => l.includes('"msg":"shutting down"'));
  return (JSON.parse(line!) as { pid: number }).pid;
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe.each([
  ['npm start', 'SIGTERM'],
  ['npm start', 'SIGINT'],
  ['launcher', 'SIGTERM'],
] as const)('%s, stopped by %s to its process group', (command, signal) => {
  it('lets the run in flight finish and exits 0 within the grace period', async () => {
    const service = await startService(command);
    const executionId = await runInFlight(service, 8_000);

    const sentAt = Date.now();
    service.signalGroup(signal);
    // Copies of the same stop: one right behind the first, as a forwarding wrapper sends it, and
    // one once the first has been handled (a slower forwarder, systemd's final SIGTERM to what is
    // left of the group), which met Node's default action when the launcher listened only once.
    service.signalGroup(signal);
    await waitUntil(() => service.output().includes('"msg":"shutting down"'), {
      timeoutMs: 30_000,
      intervalMs: 10,
      message: 'the drain never began',
    });
    // The launcher heard the first after it was sent, so this is surely a copy by its clock too;
    // a test process starved for longer would send what the launcher rightly takes for a person's.
    if (Date.now() - sentAt < REPEAT_WINDOW_MS / 2) service.signalGroup(signal);
    // Exit 0 is the drain's end: the grace deadline exits 1, and a copy that met Node's default
    // action would end the process by the signal (null).
    expect(await service.exited).toBe(0);
    expect(isRunning(launcherPid(service))).toBe(false);
    expect(await row(executionId)).toMatchObject({
      status: 'completed',
      attempt: 1,
      extractedData: { title: 'Deployed' },
    });
    const logs = (await listExecutionLogs(h.db, executionId)).map((l) => l.message);
    expect(logs).not.toEqual(expect.arrayContaining([expect.stringContaining('goes back to the queue')]));
    expect(count(service.output(), '"msg":"shutting down"')).toBe(1);
    expect(service.output()).not.toContain('second stop signal');
  }, 180_000);
});

it('stops at once on a person’s second Ctrl-C, after the repeat window', async () => {
  const service = await startService('npm start');
  // Longer than the whole grace period: only a stop at once leaves it running when the process is gone.
  const executionId = await runInFlight(service, 120_000);

  service.signalGroup('SIGINT');
  const firstAt = Date.now();
  await waitUntil(() => service.output().includes('"msg":"shutting down"'), {
    timeoutMs: 30_000,
    message: 'the drain never began',
  });
  expect(await service.get('/readyz')).toMatchObject({ status: 503 });
  // The person presses Ctrl-C again once the copies of the first are well behind.
  await waitUntil(() => Date.now() - firstAt > REPEAT_WINDOW_MS + 500, { timeoutMs: 30_000, intervalMs: 100 });
  service.signalGroup('SIGINT');

  // 130 is the launcher's own status for SIGINT, passed on by start.mjs and npm; a drain that ran
  // to its end would exit 0 after handing the run back.
  expect(await service.exited).toBe(130);
  expect(service.output()).toContain('second stop signal: exiting at once');
  expect(isRunning(launcherPid(service))).toBe(false);
  expect(await row(executionId)).toMatchObject({ status: 'running', attempt: 1 });
}, 180_000);
