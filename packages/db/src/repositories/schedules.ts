import type { Prisma } from '../generated/prisma/client';
import type { Db } from './db-handle';

/*
 * A bot's schedule row is the source of truth; the BullMQ job scheduler in Redis is derived from
 * it. `nextRunAt` is the slot the armed job scheduler will fire next (null while nothing is
 * armed: inactive, or disarmed because the bot is paused); `lastRunAt` the slot of the latest
 * scheduled execution.
 */

/** Exactly one of `intervalSeconds` and `cron` is set; writing one clears the other. */
export interface ScheduleWrite {
  intervalSeconds: number | null;
  /** Default null (an interval schedule). */
  cron?: string | null;
  /** Default UTC. */
  timezone?: string;
  /** Default skip. */
  overlap?: 'skip' | 'allow';
  /** Default {}. */
  params?: Record<string, unknown>;
  active: boolean;
  nextRunAt: Date | null;
}

/** A schedule that should fire: active, and its bot is active. */
export interface RunnableSchedule {
  botId: string;
  intervalSeconds: number | null;
  cron: string | null;
  timezone: string;
  nextRunAt: Date | null;
}

export async function findSchedule(db: Db, botId: string) {
  return db.schedule.findUnique({ where: { botId } });
}

/** Creates or replaces the bot's schedule settings; `lastRunAt` is history and stays. */
export async function saveSchedule(db: Db, botId: string, input: ScheduleWrite) {
  // A PUT replaces the whole schedule: what it leaves out goes back to its default.
  const data = {
    ...input,
    cron: input.cron ?? null,
    timezone: input.timezone ?? 'UTC',
    overlap: input.overlap ?? 'skip',
    params: (input.params ?? {}) as Prisma.InputJsonObject,
  };
  return db.schedule.upsert({
    where: { botId },
    create: { botId, ...data },
    update: data,
  });
}

/**
 * Sets when the next run is due. With `onlyIfActive`, an inactive schedule keeps its null: a
 * late writer (a tick or a reconcile pass racing a PUT that deactivated it) cannot revive it.
 */
export async function setScheduleNextRun(
  db: Db,
  botId: string,
  nextRunAt: Date | null,
  options: { onlyIfActive?: boolean } = {},
) {
  const { count } = await db.schedule.updateMany({
    where: { botId, ...(options.onlyIfActive ? { active: true } : {}) },
    data: { nextRunAt },
  });
  return count === 1;
}

/** Every schedule that should have an armed job scheduler. */
export async function listRunnableSchedules(db: Db): Promise<RunnableSchedule[]> {
  return db.schedule.findMany({
    where: { active: true, bot: { status: 'active' } },
    select: { botId: true, intervalSeconds: true, cron: true, timezone: true, nextRunAt: true },
    orderBy: { botId: 'asc' },
  });
}

/** The bot (with its schedule, if any) as a tick needs it to decide whether to fire. */
export async function findBotWithSchedule(db: Db, botId: string) {
  return db.bot.findUnique({
    where: { id: botId },
    select: { id: true, organizationId: true, status: true, schedule: true },
  });
}

/** The execution a schedule tick already created for this slot, if any. */
export async function findScheduledExecution(db: Db, botId: string, scheduledFor: Date) {
  return db.execution.findUnique({ where: { botId_scheduledFor: { botId, scheduledFor } } });
}

/** What a tick ran under: a PUT that changed any of it since wins over the tick's late write. */
export interface ScheduleTiming {
  intervalSeconds: number | null;
  cron: string | null;
  timezone: string;
}

/**
 * Records that the tick for `slot` fired (`fired`), or passed without a run (overlap skip).
 * Ticks may be processed out of order or twice (a retry, a stalled job), so only a newer slot
 * moves `lastRunAt`; `nextRunAt` is only written while the schedule is still active with the
 * timing the tick ran under and its bot is still active, so a tick that races a PUT or a pause
 * cannot overwrite what those decided.
 */
export async function recordScheduledRun(
  db: Db,
  input: { botId: string; slot: Date; nextRunAt: Date | null; timing: ScheduleTiming; fired?: boolean },
): Promise<boolean> {
  const { timing } = input;
  const fired = input.fired ?? true;
  const count = await db.$executeRaw`
    UPDATE "Schedule"
       SET "lastRunAt" = CASE WHEN ${fired} THEN ${input.slot} ELSE "lastRunAt" END,
           "nextRunAt" = CASE WHEN active
                                   AND "intervalSeconds" IS NOT DISTINCT FROM ${timing.intervalSeconds}::int
                                   AND cron IS NOT DISTINCT FROM ${timing.cron}::text
                                   AND timezone = ${timing.timezone}
                                   AND EXISTS (SELECT 1 FROM "Bot" b WHERE b.id = "Schedule"."botId" AND b.status = 'active')
                              THEN ${input.nextRunAt} ELSE "nextRunAt" END,
           "updatedAt" = now()
     WHERE "botId" = ${input.botId} AND ("lastRunAt" IS NULL OR "lastRunAt" < ${input.slot})`;
  return count === 1;
}

/**
 * Whether the bot has a run that is pending or running (a schedule with overlap `skip` waits
 * for it), other than the one of `slot`: a tick processed twice at once must not mistake its
 * twin's row for an earlier run.
 */
export async function hasUnfinishedExecution(db: Db, botId: string, slot: Date): Promise<boolean> {
  const row = await db.execution.findFirst({
    where: {
      botId,
      status: { in: ['pending', 'running'] },
      OR: [{ scheduledFor: null }, { scheduledFor: { not: slot } }],
    },
    select: { id: true },
  });
  return row !== null;
}

/**
 * How many executions the bot has per schedule slot (`scheduledFor`, null for unscheduled runs),
 * counted in the database: a check that no slot ever fired twice.
 */
export async function countExecutionsPerSlot(
  db: Db,
  botId: string,
): Promise<{ scheduledFor: Date | null; count: number }[]> {
  const groups = await db.execution.groupBy({ by: ['scheduledFor'], where: { botId }, _count: { _all: true } });
  return groups.map((g) => ({ scheduledFor: g.scheduledFor, count: g._count._all }));
}
