import { parseEnv, redisSettingsFromUrl, type RedisSettings } from '@botfleet/core';
import { startRedisSentinel, uniqueQueuePrefix, waitUntil, type RedisSentinelTopology } from '@botfleet/testkit';
import { SentinelConnector, type SentinelConnectionOptions } from 'ioredis';
import type IORedis from 'ioredis';
import { executionRun } from './jobs';
import { createQueues } from './queues';
import {
  closeRedis,
  createRedisConnection,
  FailoverSafeSentinelConnector,
  type RedisConnection,
} from './redis-connection';
import { queueSlotReady } from './redis-ready';

/*
 * botfleet's connections through real sentinels (REDIS_SENTINELS + REDIS_SENTINEL_MASTER): they
 * reach the master, readiness holds only while a master can take the queue's writes, and after
 * a failover the same connection works on the promoted replica. One topology for the file
 * (a master, a replica, three sentinels): a few seconds to start, one failover of about 2 s.
 */

let topology: RedisSentinelTopology;
let settings: RedisSettings;
const connections: RedisConnection[] = [];

function connect(using: RedisSettings, kind: 'producer' | 'worker'): RedisConnection {
  const connection = createRedisConnection(using, kind);
  connection.on('error', () => undefined);
  connections.push(connection);
  return connection;
}

/** The readiness check's verdict: null when ready, else why not. */
const unreadyReason = (check: Promise<unknown>): Promise<string | null> =>
  check.then(
    () => null,
    (err: Error) => err.message,
  );

beforeAll(async () => {
  topology = await startRedisSentinel();
  settings = parseEnv({
    REDIS_SENTINELS: topology.sentinelsSetting,
    REDIS_SENTINEL_MASTER: topology.masterName,
  }).redis;
}, 120_000);

afterAll(async () => {
  await Promise.all(connections.map((connection) => closeRedis(connection)));
  await topology?.stop();
}, 60_000);

it('sees through a REDIS_URL that points at a sentinel: PING answers, the queue check does not', async () => {
  const [firstSentinel] = topology.sentinelsSetting.split(',');
  const wrong = connect(redisSettingsFromUrl(`redis://${firstSentinel}`), 'producer');
  await waitUntil(() => wrong.status === 'ready', { message: 'the sentinel never accepted the connection' });
  expect(await wrong.ping()).toBe('PONG');
  expect(await unreadyReason(queueSlotReady(wrong, 'bf-h1', executionRun.queue))).toMatch(/unknown command/i);
});

it('is unready while the sentinels know no master of that name', async () => {
  const unknown = connect({ ...settings, mode: 'sentinel', masterName: 'no-such-master' } as RedisSettings, 'worker');
  // Every sentinel has been asked (and named none) before the check.
  const asked = new Promise<Error>((resolve) => unknown.once('error', resolve));
  expect((await asked).message).toMatch(/sentinel/i);
  expect(await unreadyReason(queueSlotReady(unknown, 'bf-h1', executionRun.queue))).toMatch(/redis connection is/);
});

it('reaches the master through the sentinels, is unready while it is gone, and follows the failover', async () => {
  const prefix = uniqueQueuePrefix('bf-h1');
  const worker = connect(settings, 'worker');
  const producer = connect(settings, 'producer');
  await waitUntil(() => worker.status === 'ready' && producer.status === 'ready');
  const master = await topology.currentMaster();
  expect(((await (worker as IORedis).role()) as string[])[0]).toBe('master');
  await queueSlotReady(worker, prefix, executionRun.queue);
  await queueSlotReady(producer, prefix, executionRun.queue);

  const queues = createQueues(producer, prefix);
  await executionRun.enqueue(queues, { executionId: 'exe_before_failover' });
  // The job reached the replica before the master dies (the failover must not lose it).
  expect(await (producer as IORedis).wait(1, 10_000)).toBe(1);

  await topology.killMaster();
  await waitUntil(async () => (await unreadyReason(queueSlotReady(producer, prefix, executionRun.queue))) !== null, {
    message: 'readiness still passed with the master killed',
  });
  const promoted = await topology.waitForFailover(master);
  expect(promoted.port).not.toBe(master.port);

  // The same connections find the promoted replica through the sentinels.
  await waitUntil(
    async () =>
      (await unreadyReason(queueSlotReady(producer, prefix, executionRun.queue))) === null &&
      (await unreadyReason(queueSlotReady(worker, prefix, executionRun.queue))) === null,
    { timeoutMs: 60_000, message: 'the connections never reached the promoted master' },
  );
  await executionRun.enqueue(queues, { executionId: 'exe_after_failover' });
  const waiting = await queues.get(executionRun.queue).getJobs(['wait', 'prioritized'], 0, -1);
  expect(waiting.map((job) => job.id).sort()).toEqual(['exe_after_failover', 'exe_before_failover']);
  await queues.close();
}, 120_000);

describe('a failover announced while a reconnecting connection asks a sentinel for the master', () => {
  // A topology of its own: the file's has already failed over once and has no replica left.
  let own: RedisSentinelTopology;
  beforeAll(async () => {
    own = await startRedisSentinel();
  }, 120_000);
  afterAll(async () => {
    await own?.stop();
  }, 60_000);

  /** The parts of ioredis's sentinel connector this test steers (private in ioredis's types). */
  interface ConnectorInternals {
    connecting: boolean;
    resolve(endpoint: unknown): Promise<unknown>;
  }
  /** ioredis's own connector, as a custom connector (its constructor takes what ioredis passes). */
  class StockSentinelConnector extends SentinelConnector {
    constructor(options: unknown) {
      super(options as SentinelConnectionOptions);
    }
  }
  const connectorOf = (connection: RedisConnection): ConnectorInternals =>
    (connection as unknown as { connector: ConnectorInternals }).connector;

  it('reaches the promoted master, where ioredis’s own connector ends the connection for good', async () => {
    const ours = connect(
      parseEnv({ REDIS_SENTINELS: own.sentinelsSetting, REDIS_SENTINEL_MASTER: own.masterName }).redis,
      'producer',
    ) as IORedis;
    // The same connection with ioredis's connector: the control that shows the race is forced.
    const stock = ours.duplicate({ Connector: StockSentinelConnector });
    stock.on('error', () => undefined);
    connections.push(stock);
    expect(connectorOf(ours)).toBeInstanceOf(FailoverSafeSentinelConnector);
    await waitUntil(() => ours.status === 'ready' && stock.status === 'ready');
    const master = await own.currentMaster();

    // From here every question to a sentinel is answered only once the failover is done and the
    // stock connection's detector has heard +switch-master: the announcement lands while the
    // reconnect's question is in flight, every time.
    const announced = waitUntil(() => !connectorOf(stock).connecting, {
      timeoutMs: 60_000,
      message: "the stock connection's failover detector never heard +switch-master",
    });
    for (const connection of [ours, stock]) {
      const connector = connectorOf(connection);
      const resolve = connector.resolve.bind(connector);
      connector.resolve = async (endpoint) => {
        await announced;
        return resolve(endpoint);
      };
    }
    await own.killMaster();
    const promoted = await own.waitForFailover(master);
    await announced;

    await waitUntil(() => ours.status === 'ready' || ours.status === 'end', {
      timeoutMs: 60_000,
      message: 'the connection never settled after the failover',
    });
    expect(ours.status).toBe('ready');
    expect(((await ours.role()) as [string])[0]).toBe('master');
    expect(await ours.config('GET', 'port')).toEqual(['port', String(promoted.port)]);
    // ioredis alone took the interrupted question for a deliberate close: ended, never to return.
    await waitUntil(() => stock.status === 'end', {
      timeoutMs: 30_000,
      message: `stock connection is ${stock.status}`,
    });
  }, 180_000);
});
