import { redisSettingsFromUrl } from '@botfleet/core';
import { createLogger } from '@botfleet/io';
import { redisConnected, testRedisUrl, uniqueQueuePrefix, waitUntil } from '@botfleet/testkit';
import type { Worker } from 'bullmq';
import { consume } from './consume';
import { isJobNextStep, promoteDelayedJob, removeJob, type JobNextStep } from './job-moves';
import { executionRun } from './jobs';
import { createQueues, type Queues } from './queues';
import { closeRedis, createRedisConnection, type RedisConnection } from './redis-connection';
import { stopWorker } from './stop-worker';

/*
 * The one adapter that moves jobs, on real Redis: a processor returns the engine's step and
 * consume() applies it; none but `done` uses up one of BullMQ's attempts.
 */

const logger = createLogger({ level: 'silent' });
let producer: RedisConnection;
let consumer: RedisConnection;
let queues: Queues;
let worker: Worker;
/** The steps each execution's job returns, one per run of its processor; `done` once they are used up. */
const plans = new Map<string, JobNextStep[]>();
const runs: string[] = [];

beforeAll(async () => {
  producer = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'producer');
  consumer = createRedisConnection(redisSettingsFromUrl(testRedisUrl()), 'worker');
  queues = createQueues(producer, uniqueQueuePrefix());
  await redisConnected(producer);
  worker = consume(
    executionRun,
    { connection: consumer, prefix: queues.prefix, concurrency: 2, logger },
    async ({ executionId }) => {
      runs.push(executionId);
      return plans.get(executionId)?.shift() ?? { kind: 'done' as const };
    },
  );
});
afterAll(async () => {
  await stopWorker(worker, 5_000);
  await queues.get(executionRun.queue).obliterate({ force: true });
  await queues.close();
  await closeRedis(consumer);
  await closeRedis(producer);
});

const queue = () => queues.get(executionRun.queue);
const runsOf = (executionId: string) => runs.filter((id) => id === executionId).length;

async function enqueueWith(executionId: string, steps: JobNextStep[]): Promise<void> {
  plans.set(executionId, steps);
  await executionRun.enqueue(queues, { executionId }, { attempts: 1 });
}

async function stateBecomes(executionId: string, state: string): Promise<void> {
  await waitUntil(async () => (await queue().getJobState(executionId)) === state, {
    timeoutMs: 10_000,
    message: `${executionId} never became ${state}`,
  });
}

it('completes a job whose processor is done, keeping no step as its return value', async () => {
  await enqueueWith('exe_moves_done', [{ kind: 'done' }]);
  await stateBecomes('exe_moves_done', 'completed');
  expect((await queue().getJob('exe_moves_done'))?.returnvalue).toBeNull();
});

it('delays a job without using an attempt; a promote runs it again at once', async () => {
  await enqueueWith('exe_moves_delay', [{ kind: 'delay', ms: 60_000 }]);
  await stateBecomes('exe_moves_delay', 'delayed');
  const delayed = (await queue().getJob('exe_moves_delay'))!;
  expect(delayed.attemptsMade).toBe(0);
  expect(delayed.delay).toBeGreaterThan(50_000);

  expect(await promoteDelayedJob(queues, executionRun, 'exe_moves_delay')).toBe(true);
  await stateBecomes('exe_moves_delay', 'completed');
  expect(runsOf('exe_moves_delay')).toBe(2);
  // Nothing left to promote: neither a finished job nor a missing one.
  expect(await promoteDelayedJob(queues, executionRun, 'exe_moves_delay')).toBe(false);
  expect(await promoteDelayedJob(queues, executionRun, 'exe_moves_missing')).toBe(false);
});

it('hands a job back, and retries an attempt now or later, each without using an attempt', async () => {
  await enqueueWith('exe_moves_handback', [{ kind: 'handBack' }, { kind: 'retryAttempt', ms: 0 }]);
  await enqueueWith('exe_moves_retry', [{ kind: 'retryAttempt', ms: 60_000 }]);
  await stateBecomes('exe_moves_handback', 'completed');
  expect(runsOf('exe_moves_handback')).toBe(3);
  // Its one BullMQ attempt was never spent on a move: only the final run completed it.
  expect((await queue().getJob('exe_moves_handback'))!.attemptsMade).toBe(1);
  await stateBecomes('exe_moves_retry', 'delayed');
  expect((await queue().getJob('exe_moves_retry'))!.attemptsMade).toBe(0);
});

it('removes a job that waits, and leaves no trace of it', async () => {
  await enqueueWith('exe_moves_remove', [{ kind: 'delay', ms: 60_000 }]);
  await stateBecomes('exe_moves_remove', 'delayed');
  await removeJob(queues, executionRun, 'exe_moves_remove');
  expect(await queue().getJob('exe_moves_remove')).toBeUndefined();
});

it('tells a step from any other result', () => {
  expect([{ kind: 'done' }, { kind: 'delay', ms: 1 }, { kind: 'handBack' }].every(isJobNextStep)).toBe(true);
  expect([undefined, null, 'fired', { kind: 'park' }, { kind: 1 }].some(isJobNextStep)).toBe(false);
});
