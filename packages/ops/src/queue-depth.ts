import { withTimeout } from '@botfleet/core';
import { Gauge, type Registry } from 'prom-client';

/** The job states reported per queue; BullMQ's `wait` list is reported as `waiting`. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'] as const;

/**
 * What is read from a queue at scrape time: the structural part of a BullMQ Queue, so this
 * package needs no BullMQ (and tests can hand in a fake).
 */
export interface WatchedQueue {
  readonly name: string;
  getJobCounts(...types: ('wait' | 'active' | 'delayed' | 'failed' | 'prioritized')[]): Promise<Record<string, number>>;
  getJobs(
    types: ('wait' | 'prioritized')[],
    start: number,
    end: number,
    asc: boolean,
  ): Promise<({ timestamp: number; delay: number } | undefined)[]>;
}

/** A queue that does not answer within this is left out of a scrape rather than stalling it. */
const COLLECT_TIMEOUT_MS = 1_000;
const READING_REUSE_MS = 250;

/**
 * botfleet_queue_jobs{queue,state} and botfleet_queue_oldest_waiting_seconds{queue}, read from
 * Redis when /metrics is scraped (not polled), so a scaled-to-zero worker pool still has a depth
 * to scale on from whichever role is scraped. A queue that cannot be read is dropped from that
 * scrape: an absent series says "unknown", a stale one would lie.
 */
export function createQueueDepth(registry: Registry) {
  const queues = new Map<string, WatchedQueue>();
  // Both gauges are filled from one read: prom-client collects them one after the other within
  // a scrape, so a reading younger than this is reused instead of asking Redis twice.
  let last: { at: number; reading: Promise<Map<string, QueueReading | null>> } | null = null;
  const readAll = () => {
    if (!last || Date.now() - last.at > READING_REUSE_MS)
      last = { at: Date.now(), reading: readQueues([...queues.values()]) };
    return last.reading;
  };

  const jobs: Gauge<'queue' | 'state'> = new Gauge({
    name: 'botfleet_queue_jobs',
    help: 'Jobs per queue and state (waiting, active, delayed, failed, prioritized)',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    // Every process reads the same Redis: summed over a launcher's API processes it would count
    // each job once per process (prom-client's AggregatorRegistry reads this).
    aggregator: 'max',
    async collect() {
      jobs.reset();
      for (const [name, reading] of await readAll()) {
        if (!reading) continue;
        for (const state of QUEUE_STATES) jobs.set({ queue: name, state }, reading.counts[state]);
      }
    },
  });
  const oldest: Gauge<'queue'> = new Gauge({
    name: 'botfleet_queue_oldest_waiting_seconds',
    help: 'Age of the oldest job waiting to be taken, per queue (0 when none waits)',
    labelNames: ['queue'] as const,
    registers: [registry],
    aggregator: 'max',
    async collect() {
      oldest.reset();
      for (const [name, reading] of await readAll()) {
        if (reading) oldest.set({ queue: name }, reading.oldestWaitingSeconds);
      }
    },
  });

  return {
    /**
     * Reports these queues from now on. With several roles in one process the first queue of a
     * name is kept. Returns how to stop (the role calls it before closing its queues).
     */
    watch(watched: readonly WatchedQueue[]): () => void {
      const added = watched.filter((q) => !queues.has(q.name));
      for (const q of added) queues.set(q.name, q);
      last = null;
      return () => {
        for (const q of added) if (queues.get(q.name) === q) queues.delete(q.name);
        last = null;
      };
    },
  };
}

export type QueueDepth = ReturnType<typeof createQueueDepth>;

interface QueueReading {
  counts: Record<(typeof QUEUE_STATES)[number], number>;
  oldestWaitingSeconds: number;
}

async function readQueues(queues: WatchedQueue[]): Promise<Map<string, QueueReading | null>> {
  const readings = await Promise.all(
    queues.map((q) =>
      withTimeout(readQueue(q), COLLECT_TIMEOUT_MS, `queue ${q.name} did not answer`).catch(() => null),
    ),
  );
  return new Map(queues.map((q, i) => [q.name, readings[i] ?? null]));
}

async function readQueue(queue: WatchedQueue): Promise<QueueReading> {
  const [counts, [oldestJob], [nextPrioritized]] = await Promise.all([
    queue.getJobCounts('wait', 'active', 'delayed', 'failed', 'prioritized'),
    // The wait list is FIFO: its far end is the job that has waited longest.
    queue.getJobs(['wait'], 0, 0, true),
    // Prioritized jobs (execution runs, ordered by fair share) are served lowest priority first;
    // the next one served stands for them (an approximation of the oldest).
    queue.getJobs(['prioritized'], 0, 0, true),
  ]);
  // A delayed job starts waiting when its delay ends, not when it was added.
  const since = (job: typeof oldestJob) => (job ? job.timestamp + (job.delay || 0) : null);
  const starts = [since(oldestJob), since(nextPrioritized)].filter((t): t is number => t !== null);
  const waitingSince = starts.length > 0 ? Math.min(...starts) : null;
  return {
    counts: {
      waiting: counts.wait ?? 0,
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      failed: counts.failed ?? 0,
      prioritized: counts.prioritized ?? 0,
    },
    oldestWaitingSeconds: waitingSince === null ? 0 : Math.max(0, (Date.now() - waitingSince) / 1000),
  };
}
