import { openEventStream } from '@botfleet/api/testing';
import { startRedisCluster, waitUntil, type RedisClusterTopology } from '@botfleet/testkit';
import { COMPLETED_ONCE, startFleet, type Fleet } from './testing/fleet';

/*
 * botfleet on a real Redis Cluster (three masters, no replicas), every role in a process of its
 * own, with two schedulers as a deployment runs them. Before contract part 3 every consumer
 * looped on CROSSSLOT, the reconcile failed with MOVED and triggers answered 202 for runs that
 * never started. Here a batch completes, each run exactly once (one final write, one webhook),
 * a per-second cron fires once per slot, and the roles log no trouble doing it.
 *
 * REDIS_URL points at a port nothing listens on: in cluster mode only REDIS_CLUSTER_NODES may
 * be used to reach Redis.
 */

const RUNS = 20;
const CRON_SLOTS = 3;

let cluster: RedisClusterTopology;
let fleet: Fleet;

beforeAll(async () => {
  cluster = await startRedisCluster();
  fleet = await startFleet({
    roles: ['api', 'worker', 'delivery', 'scheduler', 'scheduler'],
    queuePrefix: '{bf-h2}',
    env: {
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_CLUSTER_NODES: cluster.nodesSetting,
      MIN_SCHEDULE_INTERVAL_SECONDS: '1',
      WORKER_CONCURRENCY: '2',
    },
  });
}, 240_000);

afterAll(async () => {
  await fleet?.stop();
  await cluster?.stop();
}, 60_000);

it(`completes a batch of ${RUNS} runs, each exactly once, with every role on the cluster`, async () => {
  const botId = await fleet.newBot();
  const executionIds = await fleet.triggerBatch(botId, RUNS);
  await fleet.waitUntilCompletedAndDelivered(executionIds);

  for (const run of await fleet.runRecords(executionIds)) {
    // No process died: one attempt each.
    expect(run).toEqual({ ...COMPLETED_ONCE, id: run.id, attempt: 1 });
  }
  expect(fleet.receiver.requests).toHaveLength(RUNS);
}, 180_000);

it('fires a per-second cron once per slot, with two schedulers on the cluster', async () => {
  const botId = await fleet.newBot();
  // overlap `allow`: a slot whose previous run still goes fires all the same, so every slot shows.
  const schedule = { cron: '* * * * * *', overlap: 'allow' };
  expect((await fleet.api('PUT', `/bots/${botId}/schedule`, { ...schedule, active: true })).status).toBe(200);
  const scheduledRuns = () =>
    fleet.db.execution.findMany({ where: { botId, trigger: 'schedule' }, select: { id: true, scheduledFor: true } });
  await waitUntil(async () => (await scheduledRuns()).length >= CRON_SLOTS, {
    timeoutMs: 60_000,
    intervalMs: 250,
    message: `${CRON_SLOTS} scheduled runs`,
  });
  expect((await fleet.api('PUT', `/bots/${botId}/schedule`, { ...schedule, active: false })).status).toBe(200);

  const scheduled = await scheduledRuns();
  const slots = scheduled.map((run) => run.scheduledFor?.getTime());
  expect(slots.every((slot) => slot !== undefined && slot % 1000 === 0)).toBe(true);
  // Two schedulers, one series: no slot fired twice.
  expect(new Set(slots).size).toBe(slots.length);
  // And the cron's runs are worked like any other.
  await fleet.waitUntilCompletedAndDelivered(scheduled.map((run) => run.id));
}, 120_000);

it('streams runs live through the cluster’s pub/sub: the organization’s stream and a run’s', async () => {
  const all = await openEventStream(`${fleet.apiUrl}/executions/events`, fleet.apiHeaders);
  try {
    const [executionId] = await fleet.triggerBatch(await fleet.newBot(), 1);
    // Published by the API (trigger) and the worker (claim, completion) on the cluster's nodes.
    await all.waitFor((events) =>
      ['pending', 'completed'].every((status) =>
        events.some(
          (e) =>
            (e.data as { executionId: string; status: string }).executionId === executionId &&
            (e.data as { status: string }).status === status,
        ),
      ),
    );
    const run = await openEventStream(`${fleet.apiUrl}/executions/${executionId}/events`, fleet.apiHeaders);
    await run.ended;
    expect(run.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
  } finally {
    all.close();
  }
}, 60_000);

it('logs no trouble, and every role stays ready', async () => {
  // Before: 170k CROSSSLOT error lines in 34 s. A healthy cluster gives no warning at all.
  expect(fleet.troubleLines()).toEqual([]);
  for (const member of fleet.members) expect((await member.process.get('/readyz')).status).toBe(200);
});
