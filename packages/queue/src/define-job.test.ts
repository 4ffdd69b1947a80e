import { redisSettingsFromUrl } from '@botfleet/core';
import { createLogger } from '@botfleet/io';
import { redisConnected, testRedisUrl, uniqueQueuePrefix, waitUntil } from '@botfleet/testkit';
import { consume } from './consume';
import type { ConsumedJob } from './job-moves';
import { executionRun, webhookDeliver } from './jobs';
import { createQueues, type Queues } from './queues';
import { closeRedis, createRedisConnection, type RedisConnection } from './redis-connection';
import { stopWorker } from './stop-worker';

/*
 * The defineJob pattern on real Redis, through two declarations of the catalog: producers add
 * through the declaration (payload parsed, id from the rule, defaults applied) and consumers
 * parse again, failing garbage without retries.
 */

const logger = createLogger({ level: 'silent' });
let producer: RedisConnection;
let queues: Queues;

beforeAll(async () => {
  producer = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'producer');
  queues = createQueues(producer, uniqueQueuePrefix());
  await redisConnected(producer);
});
afterAll(async () => {
  for (const queue of [executionRun.queue, webhookDeliver.queue]) await queues.get(queue).obliterate({ force: true });
  await queues.close();
  await closeRedis(producer);
});

describe('enqueue', () => {
  it('adds the parsed payload under the declared name, with the id from the rule and the default options', async () => {
    await executionRun.enqueue(queues, { executionId: 'exe_enqueue1' });
    const job = await queues.get(executionRun.queue).getJob('exe_enqueue1');
    expect(job).toMatchObject({ name: 'execution.run', data: { executionId: 'exe_enqueue1' } });
    expect(job!.opts).toMatchObject({ ...executionRun.options, jobId: 'exe_enqueue1' });
    expect(executionRun.jobIdOf({ executionId: 'exe_enqueue1' })).toBe('exe_enqueue1');
  });

  it('refuses a bad payload before anything reaches Redis', async () => {
    const before = await queues.get(executionRun.queue).getJobCounts();
    await expect(executionRun.enqueue(queues, { executionId: '' })).rejects.toThrow();
    // @ts-expect-error the payload type rejects it too
    await expect(executionRun.enqueue(queues, { botId: 'bot_1' })).rejects.toThrow();
    expect(await queues.get(executionRun.queue).getJobCounts()).toEqual(before);
  });

  it('derives one id per key, dedupes a repeated enqueue and applies overrides', async () => {
    const deliveryId = 'dlv_enqueue1';
    await webhookDeliver.enqueue(queues, { deliveryId }, { attempt: 1 });
    await webhookDeliver.enqueue(queues, { deliveryId }, { attempt: 1 });
    await webhookDeliver.enqueue(queues, { deliveryId }, { attempt: 2 }, { delay: 3_600_000.4 });
    const queue = queues.get(webhookDeliver.queue);
    expect(webhookDeliver.jobIdOf({ deliveryId }, { attempt: 2 })).toBe(`${deliveryId}-2`);
    expect(await queue.getJobState(`${deliveryId}-1`)).toBe('waiting');
    expect(await queue.getJobState(`${deliveryId}-2`)).toBe('delayed');
    expect((await queue.getJob(`${deliveryId}-2`))!.opts).toMatchObject({ attempts: 3, delay: 3_600_000 });
    expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 1, delayed: 1 });
    await expect(webhookDeliver.enqueue(queues, { deliveryId }, { attempt: 0 })).rejects.toThrow();
  });
});

describe('consume', () => {
  it('hands the processor the parsed payload, and fails a garbage job at once without retries', async () => {
    const queue = queues.get(executionRun.queue);
    await queue.obliterate({ force: true });
    const seen: Array<{ payload: unknown; jobId: string | undefined }> = [];
    const connection = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'worker');
    const worker = consume(
      executionRun,
      { connection, prefix: queues.prefix, concurrency: 1, logger },
      async (payload, job: ConsumedJob) => {
        seen.push({ payload, jobId: job.id });
      },
    );
    try {
      await queue.add(executionRun.name, { nope: true }, { jobId: 'garbage-1', attempts: 3 });
      await executionRun.enqueue(queues, { executionId: 'exe_consume1' });

      await waitUntil(async () => (await queue.getJobState('garbage-1')) === 'failed', {
        timeoutMs: 10_000,
        message: 'the garbage job never failed',
      });
      const garbage = (await queue.getJob('garbage-1'))!;
      expect(garbage.attemptsMade).toBe(1);
      expect(garbage.failedReason).toBe('invalid execution.run payload');
      await waitUntil(async () => (await queue.getJobState('exe_consume1')) === 'completed', {
        timeoutMs: 10_000,
        message: 'the valid job never completed',
      });
      expect(seen).toEqual([{ payload: { executionId: 'exe_consume1' }, jobId: 'exe_consume1' }]);
    } finally {
      await stopWorker(worker, 5_000);
      await closeRedis(connection);
    }
  });
});
