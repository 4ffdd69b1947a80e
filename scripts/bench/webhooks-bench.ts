// Webhook delivery figures: end to end, then the delivery role draining a backlog against the
// batched durable sender and the one-at-a-time loop (webhook-limit.ts). Part of `npm run bench`;
// alone, against a database and Redis of your own (BENCH_WEBHOOKS and DELIVERY_CONCURRENCY apply):
//   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/<db> QUEUE_PREFIX=<prefix> npx tsx scripts/bench/webhooks-bench.ts [--quick]
import { createSecretBox, newId, type SecretBox, redisSettingsFromUrl } from '@botfleet/core';
import {
  createBot,
  createDatabaseIfMissing,
  createPrismaClient,
  deleteBot,
  deleteOrganization,
  ensureOrganization,
  findMigrationsDir,
  migrate,
  saveManifest,
  type PrismaClient,
} from '@botfleet/db';
import { createCompletedExecutionWithDelivery } from '@botfleet/db/testing';
import { startDelivery } from '@botfleet/delivery';
import { createLogger } from '@botfleet/io';
import { createQueues, createRedisConnection, webhookDeliver } from '@botfleet/queue';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadBenchConfig } from './config';
import { ownCpuMsSince } from './process-tree-cpu';
import { sleep } from './stats';
import { runBareWebhookLoop, runBatchedWebhookSender } from './webhook-limit';
import { runAsCommand } from './run-as-command';

export interface WebhooksBenchOptions {
  db: PrismaClient;
  /** For the bare loop and the drain's final check, which use raw pg connections of their own. */
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  secretBox: SecretBox;
  organizationId: string;
  /** Executions completed (one delivery each), and deliveries in each limit phase. */
  count: number;
  /** Delivery role concurrency, and the bare loop's. */
  concurrency: number;
}

/** Deliveries of already-pending rows, with the CPU this process used doing them. */
export interface DeliveryDrain {
  deliveries: number;
  /** Start to the last delivery row marked succeeded. */
  windowMs: number;
  /** This process's CPU over the window: the delivery role (or the bare loop) and the receiver. */
  cpuMs: number;
}

export interface WebhooksBenchResult {
  /** Deliveries received per second, from the first completion to the last receipt. */
  webhookRps: number;
  /** Completion (the commit that creates the delivery) to receipt at the receiver. */
  webhookP50Ms: number;
  webhookP95Ms: number;
  /** The delivery role draining `count` pending deliveries whose jobs are all enqueued at once. */
  role: DeliveryDrain;
  /** The one-at-a-time loop (webhook-limit.ts) delivering `count` pending deliveries. */
  bare: DeliveryDrain;
  /** The batched durable sender (webhook-limit.ts) delivering `count` pending deliveries: the limit. */
  batched: DeliveryDrain;
}

/** Completions are produced this many at a time, as several execution workers would. */
const PRODUCERS = 8;

/** A local endpoint that answers 204 and notes when each signed delivery first arrived. */
async function startReceiver() {
  const receivedAt = new Map<string, number>();
  const waiters: Array<{ ids: readonly string[]; resolve: () => void }> = [];
  const settle = () => {
    for (const waiter of waiters.splice(0)) {
      if (waiter.ids.every((id) => receivedAt.has(id))) waiter.resolve();
      else waiters.push(waiter);
    }
  };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      if (req.headers['webhook-signature'] && !receivedAt.has(id)) receivedAt.set(id, performance.now());
      res.writeHead(204).end();
      settle();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    receivedAt,
    /** Resolves once every id has arrived, or after `timeoutMs` (the caller checks which). */
    waitFor(ids: readonly string[], timeoutMs: number): Promise<void> {
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        waiters.push({
          ids,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
        settle();
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * End to end on loopback: N executions complete (execution row + delivery row in one
 * transaction, then the job), the delivery role signs and POSTs each to a local receiver.
 * Then the limit: N more pending deliveries drained by a role started on their queued jobs
 * (until every row is marked succeeded), then N more by the one-at-a-time loop with the same
 * concurrency and N more by the batched sender (batches of `concurrency`), both after the role
 * has stopped (its sweeper would otherwise race them for the rows).
 * Leaves nothing behind: the bot (and with it its executions and deliveries) is deleted.
 */
export async function benchWebhooks(options: WebhooksBenchOptions): Promise<WebhooksBenchResult> {
  const receiver = await startReceiver();
  const timeoutMs = Math.max(30_000, options.count * 100);
  const secret = `bench-${newId('sec')}`;

  const bot = await createBot(options.db, options.organizationId, {
    name: 'webhooks-bench',
    targetUrl: 'https://bench.example',
    kind: 'extraction',
    tags: [],
  });
  await saveManifest(options.db, bot.id, {
    capabilities: {},
    webhook: { url: `http://127.0.0.1:${receiver.port}/hook`, auth: 'hmac' },
    webhookSecretEnc: options.secretBox.encrypt(secret),
    webhookPasswordEnc: null,
    parameters: [],
    session: null,
  });

  const connection = createRedisConnection(redisSettingsFromUrl(options.redisUrl), 'worker');
  const queues = createQueues(connection, options.queuePrefix);
  const startRole = () =>
    startDelivery({
      db: options.db,
      redis: redisSettingsFromUrl(options.redisUrl),
      queuePrefix: options.queuePrefix,
      logger: createLogger({ level: 'warn' }),
      secretBox: options.secretBox,
      concurrency: options.concurrency,
      allowPrivateNetwork: true,
      webhookTimeoutMs: 10_000,
      retryDelaysMs: [1_000, 5_000],
      sweepOrganizationId: options.organizationId,
    });
  let role: { stop(): Promise<void> } | null = await startRole();
  const checker = new Client({ connectionString: options.databaseUrl });
  await checker.connect();

  const data = { items: Array.from({ length: 20 }, (_, i) => ({ name: `item ${i}`, price: i * 1.5 })) };
  /** Completes `count` executions PRODUCERS at a time; `onCompleted` runs after each commit. */
  async function complete(count: number, onCompleted?: (deliveryId: string) => Promise<void>): Promise<string[]> {
    const ids: string[] = [];
    let next = 0;
    const produce = async () => {
      while (next < count) {
        next++;
        const { deliveryId } = await createCompletedExecutionWithDelivery(options.db, {
          botId: bot.id,
          organizationId: options.organizationId,
          extractedData: data,
        });
        if (!deliveryId) throw new Error('the bench bot has a webhook, so every completion has a delivery');
        ids.push(deliveryId);
        await onCompleted?.(deliveryId);
      }
    };
    await Promise.all(Array.from({ length: PRODUCERS }, produce));
    return ids;
  }
  async function expectReceived(ids: readonly string[]): Promise<void> {
    await receiver.waitFor(ids, timeoutMs);
    const missing = ids.filter((id) => !receiver.receivedAt.has(id)).length;
    if (missing > 0) throw new Error(`only ${ids.length - missing} of ${ids.length} webhooks arrived`);
  }

  try {
    const completedAt = new Map<string, number>();
    let firstCompletion = Number.POSITIVE_INFINITY;
    const e2eIds = await complete(options.count, async (deliveryId) => {
      const now = performance.now();
      firstCompletion = Math.min(firstCompletion, now);
      completedAt.set(deliveryId, now);
      await webhookDeliver.enqueue(queues, { deliveryId }, { attempt: 1 });
    });
    await expectReceived(e2eIds);
    const latencies = [...completedAt].map(([id, at]) => receiver.receivedAt.get(id)! - at).sort((a, b) => a - b);
    const lastReceipt = Math.max(...e2eIds.map((id) => receiver.receivedAt.get(id)!));

    // The role draining a backlog: pending rows whose jobs all wait in the queue, then a role
    // started on them, until the last row is final. Its CPU counts from its start (connections
    // included), not the enqueue: that is the producers' work.
    await role.stop();
    role = null;
    const roleIds = await complete(options.count);
    await webhookDeliver.enqueueBulk(
      queues,
      roleIds.map((deliveryId) => ({ payload: { deliveryId } })),
      { attempt: 1 },
    );
    const roleCpu = process.cpuUsage();
    const roleStarted = performance.now();
    role = await startRole();
    await expectReceived(roleIds);
    // The attempt is recorded after the receiver answered; poll (only now, so it costs little).
    for (;;) {
      const { rows } = await checker.query<{ done: number }>(
        `SELECT count(*)::int AS done FROM "WebhookDelivery" WHERE id = ANY($1) AND status = 'succeeded'`,
        [roleIds],
      );
      if (rows[0]!.done === roleIds.length) break;
      if (performance.now() - roleStarted > timeoutMs)
        throw new Error('the delivery role did not record every attempt');
      await sleep(10);
    }
    const roleDrain: DeliveryDrain = {
      deliveries: roleIds.length,
      windowMs: performance.now() - roleStarted,
      cpuMs: ownCpuMsSince(roleCpu),
    };
    await role.stop();
    role = null;

    const bareIds = await complete(options.count);
    const bareCpu = process.cpuUsage();
    const bare = await runBareWebhookLoop({
      databaseUrl: options.databaseUrl,
      deliveryIds: bareIds,
      secret,
      concurrency: options.concurrency,
    });
    const bareDrain: DeliveryDrain = { ...bare, cpuMs: ownCpuMsSince(bareCpu) };
    await expectReceived(bareIds);

    const batchedIds = await complete(options.count);
    const batchedCpu = process.cpuUsage();
    const batched = await runBatchedWebhookSender({
      databaseUrl: options.databaseUrl,
      deliveryIds: batchedIds,
      secret,
      batchSize: options.concurrency,
      lanes: 2,
    });
    const batchedDrain: DeliveryDrain = { ...batched, cpuMs: ownCpuMsSince(batchedCpu) };
    await expectReceived(batchedIds);

    return {
      webhookRps: round(options.count / ((lastReceipt - firstCompletion) / 1000)),
      webhookP50Ms: round(percentile(latencies, 0.5)),
      webhookP95Ms: round(percentile(latencies, 0.95)),
      role: roleDrain,
      bare: bareDrain,
      batched: batchedDrain,
    };
  } finally {
    await role?.stop();
    await checker.end();
    await queues.get(webhookDeliver.queue).obliterate({ force: true });
    await queues.close();
    await connection.quit();
    await receiver.close();
    await deleteBot(options.db, options.organizationId, bot.id);
  }
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** Alone: the webhook figures on DATABASE_URL (created and migrated if need be) and REDIS_URL. */
async function main(): Promise<void> {
  const config = loadBenchConfig();
  await createDatabaseIfMissing(config.databaseUrl);
  await migrate(config.databaseUrl, { migrationsDir: findMigrationsDir(__dirname) });
  const db = createPrismaClient(config.databaseUrl);
  const org = await ensureOrganization(db, `bench-${randomBytes(4).toString('hex')}`);
  try {
    const result = await benchWebhooks({
      db,
      databaseUrl: config.databaseUrl,
      redisUrl: config.redisUrl,
      queuePrefix: config.queuePrefix,
      secretBox: createSecretBox(randomBytes(32)),
      organizationId: org.id,
      count: config.webhooks,
      concurrency: config.webhookConcurrency,
    });
    const perDelivery = (d: DeliveryDrain) => Math.round((d.cpuMs / d.deliveries) * 1000) / 1000;
    const line = (name: string, d: DeliveryDrain) =>
      `${name.padEnd(14)} ${round((d.deliveries / d.windowMs) * 1000)} deliveries/s  CPU ${perDelivery(d)} ms/delivery  (${d.deliveries} in ${round(d.windowMs)} ms)`;
    process.stdout.write(
      [
        `webhooks e2e   ${result.webhookRps} deliveries/s  p50 ${result.webhookP50Ms} ms  p95 ${result.webhookP95Ms} ms`,
        line('role', result.role),
        line('batched', result.batched),
        line('one-at-a-time', result.bare),
        JSON.stringify({
          webhookRatio: Math.round((perDelivery(result.batched) / perDelivery(result.role)) * 1000) / 1000,
          webhookCpuMsPerDelivery: perDelivery(result.role),
          webhookBatchedCpuMsPerDelivery: perDelivery(result.batched),
          webhookBareCpuMsPerDelivery: perDelivery(result.bare),
        }),
      ].join('\n') + '\n',
    );
  } finally {
    await deleteOrganization(db, org.id);
    await db.$disconnect();
  }
}

if (require.main === module) runAsCommand(main);
