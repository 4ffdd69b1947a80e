import { createLogger, newId, type SecretBox } from '@botfleet/core';
import {
  createBot,
  createCompletedExecutionWithDelivery,
  deleteBot,
  saveManifest,
  type PrismaClient,
} from '@botfleet/db';
import { startDelivery } from '@botfleet/delivery';
import { createQueues, createRedisConnection, webhookDeliver } from '@botfleet/queue';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhooksBenchOptions {
  db: PrismaClient;
  redisUrl: string;
  queuePrefix: string;
  secretBox: SecretBox;
  organizationId: string;
  /** Executions completed (one delivery each). */
  count: number;
  /** Delivery role concurrency. */
  concurrency: number;
}

export interface WebhooksBenchResult {
  /** Deliveries received per second, from the first completion to the last receipt. */
  webhookRps: number;
  /** Completion (the commit that creates the delivery) to receipt at the receiver. */
  webhookP50Ms: number;
  webhookP95Ms: number;
}

/** Completions are produced this many at a time, as several execution workers would. */
const PRODUCERS = 8;

/**
 * End to end on loopback: N executions complete (execution row + delivery row in one
 * transaction, then the job), the delivery role signs and POSTs each to a local receiver.
 * Leaves nothing behind: the bot (and with it its executions and deliveries) is deleted.
 */
export async function benchWebhooks(options: WebhooksBenchOptions): Promise<WebhooksBenchResult> {
  const receivedAt = new Map<string, number>();
  let allReceived: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    allReceived = resolve;
  });
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      if (req.headers['webhook-signature'] && !receivedAt.has(id)) receivedAt.set(id, performance.now());
      res.writeHead(204).end();
      if (receivedAt.size >= options.count) allReceived();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;

  const bot = await createBot(options.db, options.organizationId, {
    name: 'webhooks-bench',
    targetUrl: 'https://bench.example',
    kind: 'extraction',
    tags: [],
  });
  await saveManifest(options.db, bot.id, {
    capabilities: {},
    webhook: { url: `http://127.0.0.1:${port}/hook`, auth: 'hmac' },
    webhookSecretEnc: options.secretBox.encrypt(`bench-${newId('sec')}`),
    webhookPasswordEnc: null,
    parameters: [],
  });

  const connection = createRedisConnection(options.redisUrl, 'worker');
  const queues = createQueues(connection, options.queuePrefix);
  const role = await startDelivery({
    db: options.db,
    redisUrl: options.redisUrl,
    queuePrefix: options.queuePrefix,
    logger: createLogger({ level: 'warn' }),
    secretBox: options.secretBox,
    concurrency: options.concurrency,
    allowPrivateNetwork: true,
    timeoutMs: 10_000,
    retryDelaysMs: [1_000, 5_000],
    sweepOrganizationId: options.organizationId,
  });

  const completedAt = new Map<string, number>();
  let next = 0;
  let firstCompletion = Number.POSITIVE_INFINITY;
  const data = { items: Array.from({ length: 20 }, (_, i) => ({ name: `item ${i}`, price: i * 1.5 })) };
  async function produce(): Promise<void> {
    while (next < options.count) {
      next++;
      const { deliveryId } = await createCompletedExecutionWithDelivery(options.db, {
        botId: bot.id,
        organizationId: options.organizationId,
        extractedData: data,
      });
      if (!deliveryId) throw new Error('the bench bot has a webhook, so every completion has a delivery');
      const now = performance.now();
      firstCompletion = Math.min(firstCompletion, now);
      completedAt.set(deliveryId, now);
      await webhookDeliver.enqueue(queues, { deliveryId }, { attempt: 1 });
    }
  }

  try {
    await Promise.all(Array.from({ length: PRODUCERS }, produce));
    const deadline = setTimeout(allReceived, Math.max(30_000, options.count * 100));
    await done;
    clearTimeout(deadline);
    if (receivedAt.size < options.count)
      throw new Error(`only ${receivedAt.size} of ${options.count} webhooks arrived`);

    const latencies = [...completedAt].map(([id, at]) => receivedAt.get(id)! - at).sort((a, b) => a - b);
    const lastReceipt = Math.max(...receivedAt.values());
    return {
      webhookRps: round(options.count / ((lastReceipt - firstCompletion) / 1000)),
      webhookP50Ms: round(percentile(latencies, 0.5)),
      webhookP95Ms: round(percentile(latencies, 0.95)),
    };
  } finally {
    await role.stop();
    await queues.get(webhookDeliver.queue).obliterate({ force: true });
    await queues.close();
    await connection.quit();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await deleteBot(options.db, options.organizationId, bot.id);
  }
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? 0;
}

const round = (n: number) => Math.round(n * 10) / 10;
