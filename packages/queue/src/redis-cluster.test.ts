import { parseEnv, redisSettingsFromUrl, type Logger, type RedisSettings } from '@botfleet/core';
import {
  deletePrefixedKeys,
  startRedisCluster,
  uniqueQueuePrefix,
  waitUntil,
  type RedisClusterTopology,
} from '@botfleet/testkit';
import type { Worker } from 'bullmq';
import { cancelChannel } from './redis-keys';
import { consume, consumerReady } from './consume';
import { advanceStartClock, enqueueExecutionRuns } from './fair-share';
import { executionRun } from './jobs';
import { createQueues } from './queues';
import { closeRedis, createRedisConnection, isCluster, type RedisConnection } from './redis-connection';
import { queueSlotReady } from './redis-ready';
import { stopWorker } from './stop-worker';

/*
 * botfleet's queues on a real three-master Redis Cluster (REDIS_CLUSTER_NODES): with a hash-tagged
 * prefix BullMQ and botfleet's own scripts work; without one every poll fails with CROSSSLOT, and
 * readiness says so while the log says it once. One cluster for the file: about 2 s to start.
 */

let topology: RedisClusterTopology;
let settings: RedisSettings;
const connections: RedisConnection[] = [];
const workers: Worker[] = [];

function connect(kind: 'producer' | 'worker' | 'subscriber'): RedisConnection {
  const connection = createRedisConnection(settings, kind);
  connection.on('error', () => undefined);
  connections.push(connection);
  return connection;
}

/** A logger that keeps what consumers write, to count repeated lines. */
function recordingLogger() {
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const record = (fields: Record<string, unknown>, message: string) => lines.push({ fields, message });
  const logger = { error: record, warn: record, info: record, debug: () => undefined } as unknown as Logger;
  return { lines, logger };
}

beforeAll(async () => {
  topology = await startRedisCluster();
  settings = parseEnv({ REDIS_CLUSTER_NODES: topology.nodesSetting }).redis;
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((worker) => stopWorker(worker, 5_000)));
  await Promise.all(connections.map((connection) => closeRedis(connection)));
  await topology?.stop();
}, 60_000);

it('enqueues and consumes a batch exactly once with the hash-tagged prefix, fair-share scripts included', async () => {
  const prefix = `{${uniqueQueuePrefix('bf-h1')}}`;
  const producer = connect('producer');
  const consumerConnection = connect('worker');
  expect(isCluster(producer)).toBe(true);
  const queues = createQueues(producer, prefix);
  await waitUntil(() => producer.status === 'ready', { message: 'the producer never reached the cluster' });

  const ids = Array.from({ length: 20 }, (_, i) => `exe_cluster_${i}`);
  // One start-tag script over five keys (ours and BullMQ's), then one addBulk.
  await enqueueExecutionRuns(queues, 'org_cluster', ids);
  // The same ids again: a no-op, the jobs exist.
  await enqueueExecutionRuns(queues, 'org_cluster', ids.slice(0, 5));

  const seen: string[] = [];
  const { logger } = recordingLogger();
  const worker = consume(
    executionRun,
    { connection: consumerConnection, prefix, concurrency: 4, logger },
    async (payload, job) => {
      seen.push(payload.executionId);
      await advanceStartClock(queues, job.priority);
    },
  );
  workers.push(worker);
  await waitUntil(() => seen.length >= ids.length, { message: 'the cluster batch never finished' });
  await waitUntil(async () => (await queues.get(executionRun.queue).getCompletedCount()) === ids.length);
  expect([...seen].sort()).toEqual([...ids].sort());

  await queueSlotReady(producer, prefix, executionRun.queue);
  await queueSlotReady(consumerConnection, prefix, executionRun.queue);
  await consumerReady(worker);

  await stopWorker(worker, 5_000);
  await queues.close();
  // Test clean-up scans every master, as a cluster SCAN must.
  expect(await deletePrefixedKeys(producer, prefix)).toBeGreaterThan(0);
  expect(await deletePrefixedKeys(producer, prefix)).toBe(0);
}, 120_000);

it('is unready with a prefix that is not a hash tag, and logs the repeating CROSSSLOT once per window', async () => {
  // parseEnv refuses this prefix; a role handed it anyway must not look healthy.
  const prefix = uniqueQueuePrefix('bf-h1-plain');
  const consumerConnection = connect('worker');
  await waitUntil(() => consumerConnection.status === 'ready');
  await expect(queueSlotReady(consumerConnection, prefix, executionRun.queue)).rejects.toThrow(/CROSSSLOT/);

  const { lines, logger } = recordingLogger();
  const startedAt = Date.now();
  const worker = consume(executionRun, { connection: consumerConnection, prefix, logger }, async () => undefined);
  workers.push(worker);
  let errors = 0;
  worker.on('error', () => (errors += 1));
  const failure = await waitUntil(
    () =>
      consumerReady(worker).then(
        () => false,
        (err: Error) => err.message,
      ),
    { message: 'the consumer never reported its failing polls' },
  );
  expect(failure).toMatch(/executions consumer's polls fail: .*CROSSSLOT/);
  // BullMQ retries a failing poll at once; the log keeps one line per 10 s, with a count.
  await waitUntil(() => errors >= 5, { message: 'BullMQ stopped retrying the failing poll' });
  const crossSlotLines = lines.filter((line) => /CROSSSLOT/.test(String(line.fields.err)));
  expect(crossSlotLines.length).toBeGreaterThanOrEqual(1);
  expect(crossSlotLines.length).toBeLessThanOrEqual(1 + Math.floor((Date.now() - startedAt) / 10_000));
  expect(crossSlotLines.length).toBeLessThan(errors);
  await stopWorker(worker, 5_000);
}, 120_000);

it('is unready on the nodes a standalone REDIS_URL reaches that do not own the queue slot (MOVED)', async () => {
  const prefix = `{${uniqueQueuePrefix('bf-h1')}}`;
  const verdicts = await Promise.all(
    topology.nodes.map(async ({ host, port }) => {
      const standalone = createRedisConnection(redisSettingsFromUrl(`redis://${host}:${port}`), 'producer');
      standalone.on('error', () => undefined);
      connections.push(standalone);
      await waitUntil(() => standalone.status === 'ready');
      return queueSlotReady(standalone, prefix, executionRun.queue).then(
        () => 'ready',
        (err: Error) => err.message.split(' ')[0],
      );
    }),
  );
  // One master owns the slot; a client that does not follow redirections fails on the other two.
  expect(verdicts.sort()).toEqual(['MOVED', 'MOVED', 'ready']);
}, 60_000);

it('carries cancellations over the cluster: a publish on any node reaches a subscriber', async () => {
  const prefix = `{${uniqueQueuePrefix('bf-h1')}}`;
  const subscriber = connect('subscriber');
  const producer = connect('producer');
  const received: string[] = [];
  subscriber.on('message', (_channel: string, message: string) => received.push(message));
  await subscriber.subscribe(cancelChannel(prefix));
  await waitUntil(() => producer.status === 'ready');
  await waitUntil(
    async () => {
      await producer.publish(cancelChannel(prefix), 'exe_cancelled');
      return received.includes('exe_cancelled');
    },
    { message: 'the cancel message never reached the subscriber' },
  );
}, 60_000);
