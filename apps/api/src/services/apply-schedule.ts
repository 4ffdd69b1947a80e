import { scheduleSpecOf, validateParams, type Logger, type ParameterDefinition } from '@botfleet/core';
import { findSchedule, saveSchedule, setScheduleNextRun, type Db, type Schedule } from '@botfleet/db';
import { armPlan, armSchedule, disarmSchedule, type Queues } from '@botfleet/queue';

/** A schedule as PUT sets it: exactly one of `intervalSeconds` and `cron`. */
export interface ScheduleSettings {
  intervalSeconds: number | null;
  cron: string | null;
  timezone: string;
  overlap: 'skip' | 'allow';
  params: Record<string, unknown>;
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
 * `params` are checked against the bot's declared parameters like a trigger's, so a scheduled
 * run cannot fail on them later. `nextRunAt` is the slot the armed scheduler fires next: the
 * first interval or cron occurrence after now when the schedule starts (or its timing changes),
 * unchanged when an active schedule is saved again with the same timing, and null when it does
 * not fire (inactive, or the bot is paused).
 */
export async function applySchedule(
  deps: ApplyScheduleDeps,
  bot: { id: string; status: 'active' | 'paused'; parameters: ParameterDefinition[] },
  settings: ScheduleSettings,
): Promise<Schedule> {
  const { db, queues, logger } = deps;
  validateParams(bot.parameters, settings.params);
  if (!settings.active || bot.status !== 'active') {
    const schedule = await saveSchedule(db, bot.id, { ...settings, nextRunAt: null });
    await runOrDefer(logger, bot.id, () => disarmSchedule(queues, bot.id));
    return schedule;
  }

  const existing = await findSchedule(db, bot.id);
  const unchanged =
    existing !== null &&
    existing.active &&
    existing.intervalSeconds === settings.intervalSeconds &&
    existing.cron === settings.cron &&
    existing.timezone === settings.timezone;
  const now = new Date();
  const plan = armPlan(bot.id, scheduleSpecOf(settings), unchanged ? existing.nextRunAt : null, now);
  let schedule = await saveSchedule(db, bot.id, { ...settings, nextRunAt: plan.first });
  await runOrDefer(logger, bot.id, async () => {
    const slot = await armSchedule(queues, plan.input);
    // BullMQ keeps the slot of a scheduler already armed with this timing: report that one.
    if (
      slot !== null &&
      slot !== plan.first?.getTime() &&
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
