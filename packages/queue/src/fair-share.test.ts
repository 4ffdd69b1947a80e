import { redisSettingsFromUrl } from '@botfleet/core';
import { deletePrefixedKeys, testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import { parseExecutionNotice, type ExecutionNotice } from './execution-events';
import { executionEventsChannel } from './redis-keys';
import { advanceStartClock, assignStartTags, enqueueExecutionRuns } from './fair-share';
import { executionRun } from './jobs';
import { createQueues, type Queues } from './queues';
import { closeRedis, createRedisConnection } from './redis-connection';

/* Start tags on real Redis: the order BullMQ serves execution.run jobs in. */

const connection = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'worker');
let queues: Queues;

beforeEach(() => {
  queues = createQueues(connection, uniqueQueuePrefix('test-fair'));
});
afterEach(async () => {
  await deletePrefixedKeys(connection, queues.prefix);
  await queues.close();
});
afterAll(() => closeRedis(connection));

it('gives an organization consecutive tags, and a newcomer tags from the clock, not after the backlog', async () => {
  await enqueueExecutionRuns(
    queues,
    'org_a',
    Array.from({ length: 5 }, (_, i) => `exe_a${i}`),
  );
  expect(await assignStartTags(queues, 'org_a', 2)).toEqual([6, 7]);
  expect(await assignStartTags(queues, 'org_b', 1)).toEqual([1]);
  // Workers took A's runs up to tag 3: B's next run queues right behind that point.
  await advanceStartClock(queues, 3);
  await advanceStartClock(queues, 2); // the clock never goes back
  expect(await assignStartTags(queues, 'org_b', 2)).toEqual([4, 5]);
  expect(await assignStartTags(queues, 'org_c', 1)).toEqual([4]);
});

it('orders the queue so organizations interleave and each stays FIFO', async () => {
  await enqueueExecutionRuns(queues, 'org_a', ['exe_a1', 'exe_a2', 'exe_a3']);
  await enqueueExecutionRuns(queues, 'org_b', ['exe_b1', 'exe_b2']);
  const jobs = await queues.get(executionRun.queue).getJobs(['prioritized'], 0, -1, true);
  const order = jobs
    .map((job) => ({ id: job.id!, priority: job.opts.priority ?? 0, seq: Number(job.timestamp) }))
    .sort((x, y) => x.priority - y.priority)
    .map((job) => job.id);
  expect(order.slice(0, 2).sort()).toEqual(['exe_a1', 'exe_b1']);
  expect(order.slice(2, 4).sort()).toEqual(['exe_a2', 'exe_b2']);
  expect(order[4]).toBe('exe_a3');
});

it('starts again from 1 once nothing waits', async () => {
  await enqueueExecutionRuns(queues, 'org_a', ['exe_a1', 'exe_a2']);
  await advanceStartClock(queues, 2);
  await queues.get(executionRun.queue).obliterate({ force: true });
  expect(await assignStartTags(queues, 'org_a', 1)).toEqual([1]);
});

it("publishes the new runs' live notices with the same call, each as the channel's subscribers read it", async () => {
  const subscriber = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'subscriber');
  try {
    const heard: Array<ExecutionNotice | null> = [];
    subscriber.on('message', (_channel: string, message: string) => heard.push(parseExecutionNotice(message)));
    await subscriber.subscribe(executionEventsChannel(queues.prefix));
    const notice = (executionId: string): Omit<ExecutionNotice, 'at'> => ({
      executionId,
      organizationId: 'org_a',
      botId: 'bot_a',
      status: 'pending',
      attempt: 0,
      changed: ['status'],
    });
    const before = Date.now();
    await enqueueExecutionRuns(queues, 'org_a', ['exe_n1', 'exe_n2'], [notice('exe_n1'), notice('exe_n2')]);
    // Published inside the script, before it returned: the subscriber reads them next.
    await subscriber.ping();
    expect(heard).toEqual([
      { ...notice('exe_n1'), at: expect.any(Number) },
      { ...notice('exe_n2'), at: expect.any(Number) },
    ]);
    expect(heard[0]!.at).toBeGreaterThanOrEqual(before);
    expect((await queues.get(executionRun.queue).getJobs(['prioritized'])).map((job) => job.id).sort()).toEqual([
      'exe_n1',
      'exe_n2',
    ]);
  } finally {
    await closeRedis(subscriber);
  }
});
