import { scheduleTick } from '../jobs/schedule-tick';
import type { Queues } from '../queues';
import { tickSlotOf } from './tick-slot';

/*
 * The Redis side of a schedule: one BullMQ job scheduler per bot on the tick queue (scheduleTick.queue),
 * producing one `schedule.tick` job per slot. Everything here can be rebuilt from the schedule
 * rows, which is what the reconciler does after Redis loses it.
 */

const SCHEDULER_PREFIX = 'bot-';
const TICK_QUEUE = scheduleTick.queue;

/** BullMQ job scheduler ids must not contain ':'; bot ids never do. */
export const schedulerIdOf = (botId: string): string => `${SCHEDULER_PREFIX}${botId}`;

/** An armed job scheduler as found in Redis. */
export interface ArmedSchedule {
  botId: string;
  everyMs: number | null;
  /** Cron pattern and zone, for a cron schedule. */
  pattern: string | null;
  tz: string | null;
  /** The slot (Unix ms) it fires next. */
  next: number | null;
}

/** How to arm: every interval from `startAt`, or on a cron pattern in a zone. */
export type ArmInput =
  | { botId: string; intervalSeconds: number; startAt: Date }
  /** `fireNow`: one tick at once (missed occurrences collapsed into one run), then the pattern. */
  | { botId: string; cron: string; timezone: string; fireNow: boolean };

/**
 * Creates or updates the bot's job scheduler. For an interval, `startAt` only applies when
 * BullMQ starts a new series (none armed, or the interval changed); re-arming an unchanged
 * scheduler keeps its slot. A cron pattern fires at its occurrences in `tz`, computed by BullMQ
 * with cron-parser (the library `nextRuns` uses too). Returns the slot the armed scheduler fires
 * next, as BullMQ decided it.
 */
export async function armSchedule(queues: Queues, input: ArmInput): Promise<number | null> {
  const schedulerId = schedulerIdOf(input.botId);
  const repeat =
    'cron' in input
      ? { pattern: input.cron, tz: input.timezone, ...(input.fireNow ? { immediately: true } : {}) }
      : { every: input.intervalSeconds * 1000, startDate: input.startAt };
  const job = await queues.get(TICK_QUEUE).upsertJobScheduler(schedulerId, repeat, {
    name: scheduleTick.name,
    data: scheduleTick.schema.parse({ botId: input.botId }),
    opts: scheduleTick.options,
  });
  return tickSlotOf(job?.id, schedulerId);
}

/** Removes the bot's job scheduler and its delayed next tick; a no-op when none is armed. */
export async function disarmSchedule(queues: Queues, botId: string): Promise<void> {
  await queues.get(TICK_QUEUE).removeJobScheduler(schedulerIdOf(botId));
}

/** The slot the bot's job scheduler fires next, or null when none is armed. */
export async function nextTickOf(queues: Queues, botId: string): Promise<number | null> {
  const scheduler = await queues.get(TICK_QUEUE).getJobScheduler(schedulerIdOf(botId));
  return scheduler?.next ?? null;
}

/** Every bot job scheduler in Redis (others on the queue, if any, are not ours and are left alone). */
export async function listArmedSchedules(queues: Queues): Promise<ArmedSchedule[]> {
  const schedulers = await queues.get(TICK_QUEUE).getJobSchedulers();
  const armed: ArmedSchedule[] = [];
  for (const scheduler of schedulers) {
    if (!scheduler.key.startsWith(SCHEDULER_PREFIX)) continue;
    armed.push({
      botId: scheduler.key.slice(SCHEDULER_PREFIX.length),
      everyMs: scheduler.every ?? null,
      pattern: scheduler.pattern ?? null,
      tz: scheduler.tz ?? null,
      next: scheduler.next ?? null,
    });
  }
  return armed;
}
