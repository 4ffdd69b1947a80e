import { redisSettingsFromUrl } from '@botfleet/core';
import { deletePrefixedKeys, testRedisUrl, uniqueQueuePrefix } from '@botfleet/testkit';
import { readFileSync } from 'node:fs';
import { BULLMQ_KEY_TYPES, BULLMQ_LAYOUT_CHECKED_AGAINST, bullmqWaitingKeys } from './bullmq-keys';
import { executionRun } from './jobs';
import { createQueues, type Queues } from './queues';
import { closeRedis, createRedisConnection } from './redis-connection';

/* BullMQ's internal layout, as our Lua scripts read it: fails when an upgrade moves a key. */

const connection = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'worker');
let queues: Queues;

beforeEach(() => {
  queues = createQueues(connection, uniqueQueuePrefix('test-bullmq-keys'));
});
afterEach(async () => {
  await deletePrefixedKeys(connection, queues.prefix);
  await queues.close();
});
afterAll(() => closeRedis(connection));

it('was checked against the BullMQ version installed', () => {
  const installed = JSON.parse(readFileSync(require.resolve('bullmq/package.json'), 'utf8')) as { version: string };
  // An upgrade must re-read BullMQ's scripts for the keys in bullmq-keys.ts, then move this pin.
  expect(installed.version).toBe(BULLMQ_LAYOUT_CHECKED_AGAINST);
});

it('finds a plain, a prioritized and a delayed job in the keys and types it names', async () => {
  const queue = queues.get(executionRun.queue);
  const keys = bullmqWaitingKeys(queue);
  expect(Object.values(keys).every((key) => key.startsWith(`${queues.prefix}:`))).toBe(true);
  await queue.add('plain', {}, { jobId: 'job-plain' });
  await queue.add('prioritized', {}, { jobId: 'job-prioritized', priority: 7 });
  await queue.add('delayed', {}, { jobId: 'job-delayed', delay: 60_000 });

  for (const [name, type] of Object.entries(BULLMQ_KEY_TYPES)) {
    expect({ name, type: await connection.type(keys[name as keyof typeof keys]) }).toEqual({ name, type });
  }
  expect(await connection.lrange(keys.wait, 0, -1)).toEqual(['job-plain']);
  expect(await connection.zrange(keys.prioritized, 0, -1)).toEqual(['job-prioritized']);
  expect(await connection.zrange(keys.delayed, 0, -1)).toEqual(['job-delayed']);
});
