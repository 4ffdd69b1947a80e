import type { Db } from './db-handle';

/*
 * A bot's schedule row is the source of truth; the BullMQ job scheduler in Redis is derived from
 * it. `nextRunAt` is the slot the armed job scheduler will fire next (null while nothing is
 * armed: inactive, or disarmed because the bot is paused); `lastRunAt` the slot of the latest
 * scheduled execution.
 */

export interface ScheduleWrite {
  intervalSeconds: number;
  active: boolean;
  nextRunAt: Date | null;
}

/** A schedule that should fire: active, and its bot is active. */
export interface RunnableSchedule {
  botId: string;
  intervalSeconds: number;
  nextRunAt: Date | null;
}

export async function findSchedule(db: Db, botId: string) {
  return db.schedule.findUnique({ where: { botId } });
}

/** Creates or replaces the bot's schedule settings; `lastRunAt` is history and stays. */
export async function saveSchedule(db: Db, botId: string, input: ScheduleWrite) {
  return db.schedule.upsert({
    where: { botId },
    create: { botId, ...input },
    update: input,
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
    select: { botId: true, intervalSeconds: true, nextRunAt: true },
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

/**
 * Records that the tick for `slot` fired. Ticks may be processed out of order or twice (a
 * retry, a stalled job), so only a newer slot moves `lastRunAt`; `nextRunAt` is only written
 * while the schedule is still active with the interval the tick ran under and its bot is still
 * active, so a tick that races a PUT or a pause cannot overwrite what those decided.
 */
export async function recordScheduledRun(
  db: Db,
  input: { botId: string; slot: Date; nextRunAt: Date; intervalSeconds: number },
): Promise<boolean> {
  const count = await db.$executeRaw`
    UPDATE "Schedule"
       SET "lastRunAt" = ${input.slot},
           "nextRunAt" = CASE WHEN active AND "intervalSeconds" = ${input.intervalSeconds}
                                   AND EXISTS (SELECT 1 FROM "Bot" b WHERE b.id = "Schedule"."botId" AND b.status = 'active')
                              THEN ${input.nextRunAt} ELSE "nextRunAt" END,
           "updatedAt" = now()
     WHERE "botId" = ${input.botId} AND ("lastRunAt" IS NULL OR "lastRunAt" < ${input.slot})`;
  return count === 1;
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
