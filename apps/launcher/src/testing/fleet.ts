import type { Role } from '@botfleet/core';
import { createApiKey, createPrismaClient, type PrismaClient } from '@botfleet/db';
import { createTestDatabase, createTestOrganization } from '@botfleet/db/testing';
import { startFixtureServer, startReceiver, waitUntil, type FixtureServer, type TestReceiver } from '@botfleet/testkit';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceEnv, startRoleProcess, type RoleProcess } from './role-process';

/*
 * botfleet as a deployment runs it, for end-to-end tests against real engines (a Redis Cluster,
 * sentinels): each role in a process of its own (ROLES=<role>), all on one database and one
 * Redis setting, with a page for bots to read, a receiver for their webhooks and an organization
 * to call the API as. The database is the fleet's own, migrated before any role starts: a
 * scheduler arms every active schedule in its database, and the tests count every row they find.
 */

export interface FleetMember {
  readonly role: Role;
  readonly process: RoleProcess;
}

/** One pino line at warn or above: `level`, `time`, `pid`, `msg`, `err` and the line's own fields. */
export interface TroubleLine {
  readonly role: Role;
  readonly entry: Record<string, unknown> & { level: number; time: number; pid: number; msg?: string; err?: string };
}

/** One run, and what "it completed exactly once" rests on. */
export interface RunRecord {
  id: string;
  status: string | undefined;
  attempt: number | undefined;
  extractedData: unknown;
  /** One set of step outputs (the fleet's bots have one step). */
  stepOutputs: number;
  /** `execution.completed` delivery rows: one final write makes one. */
  completedDeliveries: number;
  succeededDeliveries: number;
  /** Webhook requests that named the run (`x-botfleet-execution-id`) at the receiver. */
  webhookRequests: number;
}

export interface Fleet {
  /** A client on the fleet's database, for the test to read rows. */
  readonly db: PrismaClient;
  readonly members: readonly FleetMember[];
  /** The webhook receiver every fleet bot posts `execution.completed` to. */
  readonly receiver: TestReceiver;
  /**
   * One request to the API (`path` under /api/v1) with the fleet organization's write key, as a
   * client sends it; the JSON body typed as the caller expects it. No connection stays open.
   */
  api<T = unknown>(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T; retryAfter: string | null }>;
  /** A bot made through the API: it extracts the fleet page's title and posts each completion. */
  newBot(): Promise<string>;
  /** Where the API is (`http://127.0.0.1:<port>/api/v1`) and the key's header, for streams a test holds open. */
  readonly apiUrl: string;
  readonly apiHeaders: Record<string, string>;
  /** Triggers `runs` runs of the bot in one batch request; their execution ids. */
  triggerBatch(botId: string, runs: number): Promise<string[]>;
  /** How many of the runs are in each status, e.g. `{ completed: 18, running: 2 }`. */
  statusCounts(executionIds: readonly string[]): Promise<Record<string, number>>;
  /** Waits until every one of the runs is `completed`, then until each one's webhook arrived. */
  waitUntilCompletedAndDelivered(executionIds: readonly string[]): Promise<void>;
  /** Each run's record, in the order of `executionIds`. */
  runRecords(executionIds: readonly string[]): Promise<RunRecord[]>;
  /** Every member's log lines at level warn or above, parsed, with its role. */
  troubleLines(): TroubleLine[];
  /** Resolves once every member's /readyz answers 200. */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** Stops every member (SIGTERM, then SIGKILL to its group past a deadline) and removes everything. */
  stop(): Promise<void>;
}

export interface FleetOptions {
  /** One process per entry, in this order; a role may appear twice (two schedulers). */
  roles: readonly Role[];
  queuePrefix: string;
  /** What every member gets on top of the fleet's own settings: the Redis variables, mostly. */
  env: NodeJS.ProcessEnv;
}

/** What every fleet bot extracts from the fleet page. */
const FLEET_EXTRACTED = { title: 'Fleet page' };
const FLEET_PAGE_HTML = `<!doctype html><body><h1 id="title">${FLEET_EXTRACTED.title}</h1></body>`;

/** The record of a fleet bot's run that completed exactly once, but for its id and attempt. */
export const COMPLETED_ONCE = {
  status: 'completed',
  extractedData: FLEET_EXTRACTED,
  stepOutputs: 1,
  completedDeliveries: 1,
  succeededDeliveries: 1,
  webhookRequests: 1,
} satisfies Omit<RunRecord, 'id' | 'attempt'>;

/** Long enough for a loaded machine to start five launchers with tsx and a Chromium. */
const READY_DEADLINE_MS = 120_000;
/** Runs are short, but a loaded machine with one worker process takes its time over a batch. */
const COMPLETION_DEADLINE_MS = 120_000;
/** How long SIGTERM may take before the member's whole process group gets SIGKILL. */
const STOP_DEADLINE_MS = 20_000;
/** pino's numeric level of `warn`: lines at it or above are trouble. */
const PINO_WARN = 40;

/** Starts the fleet and resolves once every member is ready. */
export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const cleanups: (() => Promise<void> | void)[] = [];
  const members: FleetMember[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(members.splice(0).map((member) => stopMember(member.process)));
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    const database = await createTestDatabase({ migrated: true });
    cleanups.push(() => database.drop());
    const db = createPrismaClient(database.url, { poolSize: 2 });
    cleanups.push(() => db.$disconnect());
    const dataDir = mkdtempSync(join(tmpdir(), 'botfleet-fleet-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const site = await startFixtureServer({ '/page': FLEET_PAGE_HTML });
    cleanups.push(() => site.close());
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());

    const env: NodeJS.ProcessEnv = {
      ...serviceEnv({ databaseUrl: database.url, queuePrefix: options.queuePrefix, dataDir }),
      NODE_ENV: 'test',
      // Any free port, read back from the API's own line: one chosen up front could be taken first.
      PORT: '0',
      DATABASE_POOL_SIZE: '4',
      // Migrated above; members starting together would only wait on each other's lock.
      MIGRATE_ON_START: 'false',
      LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_SECONDS: '10',
      ...options.env,
    };
    const started = await Promise.allSettled(
      options.roles.map(async (role) => ({
        role,
        process: await startRoleProcess({ ...env, ROLES: role }),
      })),
    );
    for (const result of started) if (result.status === 'fulfilled') members.push(result.value);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;

    const apiPort = await apiPortOf(members);
    const org = await createTestOrganization(db);
    const { key } = await createApiKey(db, { organizationId: org.id, name: 'fleet test', permission: 'write' });
    const fleet = createFleet({ db, members, site, receiver, apiPort, apiKey: key, stop });
    await fleet.waitUntilReady();
    return fleet;
  } catch (error) {
    await stop();
    throw error;
  }
}

function createFleet(parts: {
  db: PrismaClient;
  members: FleetMember[];
  site: FixtureServer;
  receiver: TestReceiver;
  apiPort: number;
  apiKey: string;
  stop: () => Promise<void>;
}): Fleet {
  const { db, members, site, receiver } = parts;
  const fleet: Fleet = {
    db,
    members,
    receiver,
    apiUrl: `http://127.0.0.1:${parts.apiPort}/api/v1`,
    apiHeaders: { authorization: `Bearer ${parts.apiKey}` },
    async api(method, path, body) {
      const response = await fetch(`http://127.0.0.1:${parts.apiPort}/api/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${parts.apiKey}`,
          connection: 'close',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const isJson = response.headers.get('content-type')?.includes('application/json') ?? false;
      const text = await response.text();
      return {
        status: response.status,
        body: (isJson ? JSON.parse(text) : text) as never,
        retryAfter: response.headers.get('retry-after'),
      };
    },

    async newBot() {
      const bot = await fleet.api<{ id: string }>('POST', '/bots', { name: 'fleet bot', targetUrl: site.url('/page') });
      if (bot.status !== 201) throw new Error(`creating a bot failed: ${bot.status} ${JSON.stringify(bot.body)}`);
      const setup = {
        steps: { steps: [{ action: 'extract', name: 'title', selector: '#title' }] },
        manifest: { webhook: { url: `${receiver.url}/hook`, auth: 'none', events: ['execution.completed'] } },
      };
      for (const [resource, body] of Object.entries(setup)) {
        const put = await fleet.api('PUT', `/bots/${bot.body.id}/${resource}`, body);
        if (put.status !== 200) throw new Error(`PUT ${resource} refused: ${put.status} ${JSON.stringify(put.body)}`);
      }
      return bot.body.id;
    },

    async triggerBatch(botId, runs) {
      const batch = await fleet.api<{ data: { executionId: string }[] }>('POST', `/bots/${botId}/executions/batch`, {
        runs: Array.from({ length: runs }, () => ({})),
      });
      if (batch.status !== 202) throw new Error(`the batch was refused: ${batch.status} ${JSON.stringify(batch.body)}`);
      return batch.body.data.map((run) => run.executionId);
    },

    async statusCounts(executionIds) {
      const rows = await db.execution.groupBy({
        by: ['status'],
        where: { id: { in: [...executionIds] } },
        _count: true,
      });
      return Object.fromEntries(rows.map((row) => [row.status, row._count]));
    },

    async waitUntilCompletedAndDelivered(executionIds) {
      let counts: Record<string, number> = {};
      await waitUntil(
        async () => {
          counts = await fleet.statusCounts(executionIds);
          return counts.completed === executionIds.length;
        },
        {
          timeoutMs: COMPLETION_DEADLINE_MS,
          intervalMs: 250,
          message: `not every run completed: ${JSON.stringify(counts)}`,
        },
      );
      const delivered = () => new Set(receiver.requests.map((r) => r.headers['x-botfleet-execution-id']));
      await waitUntil(() => executionIds.every((id) => delivered().has(id)), {
        timeoutMs: COMPLETION_DEADLINE_MS,
        intervalMs: 100,
        message: 'not every completed run’s webhook arrived',
      });
    },

    async runRecords(executionIds) {
      const ids = [...executionIds];
      const [rows, outputs, deliveries] = await Promise.all([
        db.execution.findMany({
          where: { id: { in: ids } },
          select: { id: true, status: true, attempt: true, extractedData: true },
        }),
        db.stepOutput.groupBy({ by: ['executionId'], where: { executionId: { in: ids } }, _count: true }),
        db.webhookDelivery.groupBy({
          by: ['executionId', 'status'],
          where: { executionId: { in: ids }, event: 'execution.completed' },
          _count: true,
        }),
      ]);
      const count = (id: string, groups: readonly { executionId: string; _count: number; status?: string }[]) =>
        groups.filter((g) => g.executionId === id).reduce((sum, g) => sum + g._count, 0);
      return ids.map((id) => {
        const row = rows.find((r) => r.id === id);
        return {
          id,
          status: row?.status,
          attempt: row?.attempt,
          extractedData: row?.extractedData,
          stepOutputs: count(id, outputs),
          completedDeliveries: count(id, deliveries),
          succeededDeliveries: count(
            id,
            deliveries.filter((d) => d.status === 'succeeded'),
          ),
          webhookRequests: receiver.requests.filter((r) => r.headers['x-botfleet-execution-id'] === id).length,
        };
      });
    },

    troubleLines: () =>
      members.flatMap((member) =>
        member.process
          .output()
          .split('\n')
          .map(parseLogLine)
          .filter((entry) => entry !== null && entry.level >= PINO_WARN)
          .map((entry) => ({ role: member.role, entry: entry! })),
      ),

    async waitUntilReady(timeoutMs = READY_DEADLINE_MS) {
      for (const member of members) {
        await waitUntil(async () => (await member.process.get('/readyz').catch(() => null))?.status === 200, {
          timeoutMs,
          intervalMs: 250,
          message: `the ${member.role} process never became ready: ${member.process.output().slice(-2_000)}`,
        });
      }
    },

    stop: parts.stop,
  };
  return fleet;
}

/** A pino JSON line, or null for anything else (tsx or Node warnings, plain text). */
function parseLogLine(line: string): TroubleLine['entry'] | null {
  if (!line.startsWith('{')) return null;
  try {
    const entry = JSON.parse(line) as Record<string, unknown>;
    return typeof entry.level === 'number' ? (entry as TroubleLine['entry']) : null;
  } catch {
    return null;
  }
}

async function stopMember(member: RoleProcess): Promise<void> {
  if (member.child.exitCode !== null || member.child.signalCode !== null) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_DEADLINE_MS)));
  const outcome = await Promise.race([member.terminate(), deadline]);
  clearTimeout(timer);
  if (outcome === 'late') {
    // The whole group, as an orchestrator ends a pod that overran its grace period.
    member.signalGroup('SIGKILL');
    await member.exited;
  }
}

/** The port the fleet's api member listens on, once it has said so. */
async function apiPortOf(members: readonly FleetMember[]): Promise<number> {
  const api = members.find((member) => member.role === 'api');
  if (!api) throw new Error('the fleet has no api role');
  await waitUntil(() => api.process.apiPort() !== undefined, {
    timeoutMs: 120_000,
    message: 'the api process never said which port it listens on',
  });
  return api.process.apiPort()!;
}
