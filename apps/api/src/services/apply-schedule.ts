import type { Logger } from '@botfleet/core';
import { findSchedule, saveSchedule, setScheduleNextRun, type Bot, type Db, type Schedule } from '@botfleet/db';
import { armSchedule, disarmSchedule, seriesStart, type Queues } from '@botfleet/queue';

export interface ScheduleSettings {
  intervalSeconds: number;
  active: boolean;
}

export interface ApplyScheduleDeps {
  db: Db;
  queues: Queues;
  logger: Logger;
}

/**
 * Writes a bot's schedule settings, then arms or disarms its job scheduler right away so the
 * change takes effect without waiting for a reconcile pass. The row is written first and is
 * the truth: if Redis refuses, the reconciler arms or disarms it within one period.
 *
 * `nextRunAt` is the slot the armed scheduler fires next: one interval from now when the
 * schedule starts (or its interval changes), unchanged when an active schedule is saved again
 * as it was, and null when it does not fire (inactive, or the bot is paused).
 */
export async function applySchedule(
  deps: ApplyScheduleDeps,
  bot: Pick<Bot, 'id' | 'status'>,
  settings: ScheduleSettings,
): Promise<Schedule> {
  const { db, queues, logger } = deps;
  if (!settings.active || bot.status !== 'active') {
    const schedule = await saveSchedule(db, bot.id, { ...settings, nextRunAt: null });
    await runOrDefer(logger, bot.id, () => disarmSchedule(queues, bot.id));
    return schedule;
  }

  const existing = await findSchedule(db, bot.id);
  const unchanged = existing !== null && existing.active && existing.intervalSeconds === settings.intervalSeconds;
  const startAt = seriesStart(unchanged ? existing.nextRunAt : null, settings.intervalSeconds, new Date());
  let schedule = await saveSchedule(db, bot.id, { ...settings, nextRunAt: startAt });
  await runOrDefer(logger, bot.id, async () => {
    const slot = await armSchedule(queues, { botId: bot.id, intervalSeconds: settings.intervalSeconds, startAt });
    // BullMQ keeps the slot of a scheduler already armed with this interval: report that one.
    if (
      slot !== null &&
      slot !== startAt.getTime() &&
      (await setScheduleNextRun(db, bot.id, new Date(slot), { onlyIfActive: true }))
    ) {
      schedule = { ...schedule, nextRunAt: new Date(slot) };
    }
  });
  return schedule;
}

/** Redis is not the truth: when it refuses, the row stands and the reconciler catches up. */
async function runOrDefer(logger: Logger, botId: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (err) {
    logger.warn({ botId, err: (err as Error).message }, 'job scheduler not updated; the reconciler will catch up');
  }
}
