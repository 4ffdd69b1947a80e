import { openEventStream } from '@botfleet/api/testing';
import { REPEATED_LOG_WINDOW_MS } from '@botfleet/core';
import { startRedisSentinel, waitUntil, type RedisSentinelTopology } from '@botfleet/testkit';
import { COMPLETED_ONCE, startFleet, type Fleet } from './testing/fleet';

/*
 * botfleet on Redis behind sentinels (a master, a replica, three sentinels), every role in a
 * process of its own and pointed at the sentinels only. The master is SIGKILLed while a batch
 * of runs is half done; the sentinels promote the replica. No run is lost (none stays pending)
 * and none completes twice, triggers during and after the failover are answered as the contract
 * says and their runs complete, every role is ready again, and the roles' repeated Redis errors
 * during the outage are throttled, not a flood.
 *
 * REDIS_URL points at a port nothing listens on: with sentinels set, its host is never used.
 */

const RUNS = 30;
const RUNS_AFTER_FAILOVER = 3;

let topology: RedisSentinelTopology;
let fleet: Fleet;

beforeAll(async () => {
  topology = await startRedisSentinel();
  fleet = await startFleet({
    roles: ['api', 'worker', 'delivery', 'scheduler'],
    queuePrefix: 'bf-h2',
    env: {
      REDIS_URL: 'redis://127.0.0.1:1',
      REDIS_SENTINELS: topology.sentinelsSetting,
      REDIS_SENTINEL_MASTER: topology.masterName,
      WORKER_CONCURRENCY: '2',
      // A job the dead master had not yet passed to its replica (or one a trigger could not
      // enqueue) is found again from its row by the sweeps: often here, so it costs seconds.
      SWEEP_INTERVAL_SECONDS: '2',
    },
  });
}, 240_000);

afterAll(async () => {
  await fleet?.stop();
  await topology?.stop();
}, 60_000);

it(`loses none of ${RUNS} runs when the master dies halfway, and works triggers during and after the failover`, async () => {
  const botId = await fleet.newBot();
  const executionIds = await fleet.triggerBatch(botId, RUNS);

  // In the middle: some runs done, others still to do.
  await waitUntil(async () => ((await fleet.statusCounts(executionIds)).completed ?? 0) >= 5, {
    timeoutMs: 90_000,
    intervalMs: 100,
    message: 'no run completed before the master was to be killed',
  });
  const countsAtKill = await fleet.statusCounts(executionIds);
  expect(countsAtKill.completed ?? 0).toBeLessThan(RUNS);
  const master = await topology.currentMaster();
  await topology.killMaster();
  const failover = topology.waitForFailover(master);
  let failedOver = false;
  void failover.finally(() => (failedOver = true)).catch(() => undefined);

  // Contract: while no master is reachable a trigger answers 503 with Retry-After, or 202 for a
  // run that then completes (checked below with the others); never anything else.
  const accepted: string[] = [];
  const trigger = async (): Promise<boolean> => {
    const res = await fleet.api<{ executionId: string }>('POST', `/bots/${botId}/executions`, {});
    if (res.status !== 202) {
      expect(res.status).toBe(503);
      expect(res.retryAfter).not.toBeNull();
      return false;
    }
    accepted.push(res.body.executionId);
    return true;
  };
  const outage = { accepted: 0, refused: 0 };
  while (!failedOver) {
    if (await trigger()) outage.accepted += 1;
    else outage.refused += 1;
    // Paced, so the outage sees a handful of triggers rather than a storm of them.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const promoted = await failover;
  process.stdout.write(
    `master ${master.port} killed at ${JSON.stringify(countsAtKill)}; replica ${promoted.port} promoted; ` +
      `triggers meanwhile: ${JSON.stringify(outage)}\n`,
  );

  // After the failover triggers are accepted again (a role may need a moment to find the master).
  let acceptedAfter = 0;
  await waitUntil(
    async () => {
      if (await trigger()) acceptedAfter += 1;
      return acceptedAfter >= RUNS_AFTER_FAILOVER;
    },
    { timeoutMs: 60_000, intervalMs: 250, message: `${RUNS_AFTER_FAILOVER} triggers accepted after the failover` },
  );

  const all = [...executionIds, ...accepted];
  await fleet.waitUntilCompletedAndDelivered(all);
  for (const run of await fleet.runRecords(all)) {
    // A run the kill interrupted may have taken a second attempt; it still ended once.
    expect(run).toEqual({ ...COMPLETED_ONCE, id: run.id, attempt: run.attempt });
  }
  expect(fleet.receiver.requests).toHaveLength(all.length);

  await fleet.waitUntilReady(60_000);
}, 300_000);

it('logged each repeated error of the outage at most once per 10 s per process, with a count', () => {
  const trouble = fleet.troubleLines();
  process.stdout.write(`${trouble.length} warning or error lines over the failover\n`);
  // The outage made every role's connections and consumers fail over and over (ECONNREFUSED
  // from the dead master, then ioredis's "All sentinels are unreachable" as it walks them).
  const errors = trouble.filter(({ entry }) => entry.err !== undefined);
  expect(errors.length).toBeGreaterThan(0);
  // One message is its level, text and error text, in one process: its lines are a window apart.
  const timesOf = new Map<string, number[]>();
  for (const { entry } of errors) {
    const key = JSON.stringify([entry.pid, entry.level, entry.msg, entry.err]);
    timesOf.set(key, [...(timesOf.get(key) ?? []), entry.time]);
  }
  const tooClose = [...timesOf].flatMap(([key, times]) =>
    times
      .slice(1)
      .map((time, i) => ({ key, gapMs: time - times[i]! }))
      // Timers round to the millisecond: a little slack below the window, none more.
      .filter(({ gapMs }) => gapMs < REPEATED_LOG_WINDOW_MS - 100),
  );
  expect(tooClose).toEqual([]);
  // The lines folded into a window are counted on the line that ends it.
  expect(errors.some(({ entry }) => typeof entry.repeated === 'number' && entry.repeated > 0)).toBe(true);
});

it('streams runs live after the failover: the API’s one subscription moved to the new master', async () => {
  const all = await openEventStream(`${fleet.apiUrl}/executions/events`, fleet.apiHeaders);
  try {
    const [executionId] = await fleet.triggerBatch(await fleet.newBot(), 1);
    await all.waitFor(
      (events) =>
        events.some((e) => {
          const change = e.data as { executionId: string; status: string };
          return change.executionId === executionId && change.status === 'completed';
        }),
      60_000,
    );
  } finally {
    all.close();
  }
}, 90_000);
