import { withTimeout } from '@botfleet/core';
import { PRIORITY_LIMIT } from 'bullmq';
import { bullmqWaitingKeys } from './bullmq-keys';
import { noticeMessages, type ExecutionNotice } from './execution-events';
import { executionRun } from './jobs/execution-run';
import { luaScript } from './lua-script';
import type { Queues } from './queues';
import { executionEventsChannel, fairShareKeys } from './redis-keys';

/*
 * Fair sharing of the execution queue between organizations (start-time fair queuing on BullMQ
 * priorities). BullMQ serves the lowest priority number first, FIFO among equals. Each
 * organization's runs get consecutive "start tags": an organization's next tag follows its own
 * last one, but never starts below the virtual clock, the tag of the latest run a worker took.
 * So organization A's 1,000 queued runs hold tags 1..1000; once workers have taken k of them,
 * organization B's new run gets tag k+1 and starts right after A's run k+1: one run per worker
 * slot, not A's whole backlog. Each organization stays FIFO (its tags only grow), and no run
 * starves (a later run can only take a tag between the clock and its own).
 *
 * The state (clock, each organization's last tag) lives in Redis beside the queue and is only
 * an ordering hint: losing it costs fairness for a while, never a run. Tags are reset once
 * nothing waits, so they stay far below BullMQ's priority limit; should they ever reach it they
 * are clamped there, which degrades to FIFO among those runs, not to an error.
 */

const ENQUEUE_TIMEOUT_MS = 3_000;

/**
 * Hands out `n` consecutive tags for an organization; returns the first. KEYS[3..5] are BullMQ's
 * prioritized (zset), delayed (zset) and wait (list) keys, as bullmq-keys.ts names them. ARGV[5..]
 * are the new runs' live notices, published on channel ARGV[4] by the same call: on the trigger
 * path that saves a round trip to Redis (PUBLISH names no key, so Cluster allows it here too).
 */
const ASSIGN_TAGS = luaScript(`
local clock = tonumber(redis.call('GET', KEYS[1]) or '0')
if redis.call('ZCARD', KEYS[3]) == 0 and redis.call('ZCARD', KEYS[4]) == 0 and redis.call('LLEN', KEYS[5]) == 0 then
  redis.call('DEL', KEYS[1], KEYS[2])
  clock = 0
end
local last = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
local start = math.max(last, clock)
local limit = tonumber(ARGV[3])
local first = math.min(start + 1, limit)
redis.call('HSET', KEYS[2], ARGV[1], math.min(start + tonumber(ARGV[2]), limit))
for i = 5, #ARGV do redis.call('PUBLISH', ARGV[4], ARGV[i]) end
return first`);

/** Moves the clock forward to a tag a worker just took (never back). */
const ADVANCE_CLOCK = luaScript(`
local tag = tonumber(ARGV[1])
if tag > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], tag) end
return 0`);

/** Our two keys beside the queue (redis-keys.ts), and BullMQ's own that hold waiting runs (bullmq-keys.ts). */
function fairKeys(queues: Queues) {
  return {
    ...fairShareKeys(queues.prefix, executionRun.queue),
    ...bullmqWaitingKeys(queues.get(executionRun.queue)),
  };
}

/**
 * The priority (start tag) of each of `count` new runs of the organization, in order; `notices`
 * (the runs' live notices, docs/live-runs.md) are published by the same call.
 */
export async function assignStartTags(
  queues: Queues,
  organizationId: string,
  count: number,
  notices: Omit<ExecutionNotice, 'at'>[] = [],
): Promise<number[]> {
  const keys = fairKeys(queues);
  const first = Number(
    await ASSIGN_TAGS.run(
      queues.connection,
      [keys.clock, keys.last, keys.prioritized, keys.delayed, keys.wait],
      [organizationId, count, PRIORITY_LIMIT, executionEventsChannel(queues.prefix), ...noticeMessages(notices)],
    ),
  );
  return Array.from({ length: count }, (_, i) => Math.min(first + i, PRIORITY_LIMIT));
}

/** Called by a worker as it takes a run: later runs of other organizations queue behind this point. */
export async function advanceStartClock(queues: Queues, tag: number | undefined): Promise<void> {
  if (!tag) return;
  const keys = fairKeys(queues);
  await ADVANCE_CLOCK.run(queues.connection, [keys.clock], [tag]);
}

/**
 * Enqueues the `execution.run` jobs of an organization's new (or recovered) pending runs, in
 * order, each with its fair start tag as priority: one script call and one `addBulk`. The job id
 * is still the execution id, so enqueueing a run whose job exists is a no-op. `notices` (new
 * runs' live notices) go out with the script call; like any notice they are best effort, and
 * are lost with it when Redis refuses the enqueue (the sweeper then enqueues from the row).
 */
export async function enqueueExecutionRuns(
  queues: Queues,
  organizationId: string,
  executionIds: string[],
  notices: Omit<ExecutionNotice, 'at'>[] = [],
): Promise<void> {
  if (executionIds.length === 0) return;
  const tags = await withTimeout(
    assignStartTags(queues, organizationId, executionIds.length, notices),
    ENQUEUE_TIMEOUT_MS,
    `Redis did not hand out start tags within ${ENQUEUE_TIMEOUT_MS} ms`,
  );
  if (executionIds.length === 1)
    return executionRun.enqueue(queues, { executionId: executionIds[0]! }, { priority: tags[0]! });
  await executionRun.enqueueBulk(
    queues,
    executionIds.map((executionId, i) => ({ payload: { executionId }, overrides: { priority: tags[i]! } })),
  );
}
