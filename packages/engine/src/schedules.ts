import { nextRunAfter, scheduleSpecOf, validateParams, type ParameterDefinition } from '@botfleet/core';
import {
  findBotWithSchedule,
  findSchedule,
  listRunnableSchedules,
  recordScheduledRun,
  saveSchedule,
  setScheduleNextRun,
  type Schedule,
} from '@botfleet/db';
import { armSchedule, disarmSchedule, listArmedSchedules, nextTickOf } from '@botfleet/queue';
import { enqueueAfterCommit } from './after-commit';
import type { EngineDeps } from './engine-deps';
import { armedMatches, armPlan } from './schedule-plan';
import { triggerScheduledExecution } from './trigger';

/*
 * The schedule commands: a bot's schedule row is the truth, and its BullMQ job scheduler (one per
 * bot, on the tick queue) is derived from it. `applySchedule` writes the row, then arms or disarms
 * after the commit; `disarmBotSchedule` stops a schedule firing; `reconcileSchedules` makes Redis
 * match the rows; `fireScheduleTick` turns one slot into at most one execution. No caller arms or
 * disarms a job scheduler itself.
 */

/** What the schedule commands need; firing a slot also applies the pending cap (EngineDeps.settings). */
export type ScheduleDeps = Pick<EngineDeps, 'db' | 'queues' | 'logger'>;

/** A schedule as PUT sets it: exactly one of `intervalSeconds` and `cron`. */
export interface ScheduleSettings {
  intervalSeconds: number | null;
  cron: string | null;
  timezone: string;
  overlap: 'skip' | 'allow';
  params: Record<string, unknown>;
  active: boolean;
}

/** The bot a schedule is set on, as its route's loader found it. */
export interface ScheduledBot {
  id: string;
  status: 'active' | 'paused';
  parameters: ParameterDefinition[];
}

/** The job scheduler follows the row; the reconcile pass rebuilds it when Redis refuses. */
const JOB_SCHEDULER_NOT_UPDATED = 'job scheduler not updated; the reconciler will catch up';

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
  deps: ScheduleDeps,
  bot: ScheduledBot,
  settings: ScheduleSettings,
): Promise<Schedule> {
  const { db, queues, logger } = deps;
  validateParams(bot.parameters, settings.params);
  if (!settings.active || bot.status !== 'active') {
    const schedule = await saveSchedule(db, bot.id, { ...settings, nextRunAt: null });
    await enqueueAfterCommit(
      logger,
      { botId: bot.id },
      () => disarmSchedule(queues, bot.id),
      JOB_SCHEDULER_NOT_UPDATED,
    );
    return schedule;
  }

  const existing = await findSchedule(db, bot.id);
  const unchanged =
    existing !== null &&
    existing.active &&
    existing.intervalSeconds === settings.intervalSeconds &&
    existing.cron === settings.cron &&
    existing.timezone === settings.timezone;
  const plan = armPlan(bot.id, scheduleSpecOf(settings), unchanged ? existing.nextRunAt : null, new Date());
  let schedule = await saveSchedule(db, bot.id, { ...settings, nextRunAt: plan.first });
  await enqueueAfterCommit(
    logger,
    { botId: bot.id },
    async () => {
      const slot = await armSchedule(queues, plan.input);
      // BullMQ keeps the slot of a scheduler already armed with this timing: report that one.
      if (
        slot !== null &&
        slot !== plan.first?.getTime() &&
        (await setScheduleNextRun(db, bot.id, new Date(slot), { onlyIfActive: true }))
      ) {
        schedule = { ...schedule, nextRunAt: new Date(slot) };
      }
    },
    JOB_SCHEDULER_NOT_UPDATED,
  );
  return schedule;
}

/**
 * Stops a bot's schedule from firing: removes its job scheduler and clears `nextRunAt` (nothing
 * is due while the bot is paused or the schedule inactive). `active` is left as the user set
 * it, so resuming a paused bot re-arms its schedule on the next reconcile pass. Throws when Redis
 * refuses, so a tick is retried and a reconcile pass counts the failure.
 */
export async function disarmBotSchedule(deps: Pick<ScheduleDeps, 'db' | 'queues'>, botId: string): Promise<void> {
  await disarmSchedule(deps.queues, botId);
  await setScheduleNextRun(deps.db, botId, null);
}

export interface ReconcileResult {
  armed: number;
  disarmed: number;
  failed: number;
}

/**
 * Makes Redis match the database: every active schedule of an active bot has a job scheduler
 * with its interval or cron pattern, and no other bot has one. A schedule whose `nextRunAt`
 * passed while nothing was armed (Redis lost, every scheduler down) fires one run at once:
 * missed occurrences collapse into that one. Heals a flushed Redis, an API that could not
 * reach Redis, and bots paused or deleted (which the API does not disarm itself).
 *
 * Redis is read before the database. A PUT writes the row before it arms, so a scheduler seen
 * here has its row visible to the later read: a schedule just activated is never mistaken for a
 * stale one and disarmed. The opposite race (armed here just after a PUT disarmed it) leaves a
 * scheduler whose next tick re-checks the row, fires nothing and disarms it.
 */
export async function reconcileSchedules(deps: ScheduleDeps): Promise<ReconcileResult> {
  const { db, queues, logger } = deps;
  const armed = new Map((await listArmedSchedules(queues)).map((a) => [a.botId, a]));
  const wanted = await listRunnableSchedules(db);
  const result: ReconcileResult = { armed: 0, disarmed: 0, failed: 0 };

  for (const schedule of wanted) {
    const current = armed.get(schedule.botId);
    armed.delete(schedule.botId);
    try {
      const spec = scheduleSpecOf(schedule);
      if (current && armedMatches(current, spec)) continue;
      const plan = armPlan(schedule.botId, spec, schedule.nextRunAt, new Date());
      const slot = await armSchedule(queues, plan.input);
      const nextRunAt = slot === null ? plan.first : new Date(slot);
      if (nextRunAt?.getTime() !== schedule.nextRunAt?.getTime())
        await setScheduleNextRun(db, schedule.botId, nextRunAt, { onlyIfActive: true });
      logger.info(
        {
          botId: schedule.botId,
          intervalSeconds: schedule.intervalSeconds,
          cron: schedule.cron,
          timezone: schedule.timezone,
          nextRunAt: nextRunAt?.getTime() ?? null,
          reason: current ? 'timing changed' : 'missing',
        },
        'job scheduler armed',
      );
      result.armed++;
    } catch (err) {
      logger.warn({ botId: schedule.botId, err: (err as Error).message }, 'could not arm job scheduler');
      result.failed++;
    }
  }

  // What is left is armed in Redis but should not fire: bot deleted or paused, schedule off.
  for (const botId of armed.keys()) {
    try {
      await disarmBotSchedule(deps, botId);
      logger.info({ botId }, 'job scheduler disarmed');
      result.disarmed++;
    } catch (err) {
      logger.warn({ botId, err: (err as Error).message }, 'could not disarm job scheduler');
      result.failed++;
    }
  }
  return result;
}

/** What one tick's slot came to; every outcome but `fired` and `already-fired` fires no run. */
export type TickOutcome = 'fired' | 'already-fired' | 'skipped' | 'overlap-skipped' | 'pending-cap-skipped';

/** One slot of a bot's job scheduler, as its tick job names it. */
export interface ScheduleTick {
  botId: string;
  /** The slot the tick belongs to (read from its job id: one job per slot). */
  scheduledFor: Date;
}

/**
 * Fires one tick's slot. The database decides, not the job: a tick for a bot that is gone,
 * paused or whose schedule is off disarms the job scheduler and fires nothing. Otherwise the slot
 * gets its execution (triggerScheduledExecution: one execution per slot, however often it is
 * processed). A slot fires nothing, and only moves `nextRunAt` on, while a run of the bot is
 * pending or running under overlap `skip` (a slow bot never piles up runs), or while the
 * organization is at its pending cap (as an API trigger would be refused; logged as a warning).
 * Every step is idempotent, so a crash between them is repaired by the tick's retry.
 */
export async function fireScheduleTick(deps: EngineDeps, tick: ScheduleTick): Promise<TickOutcome> {
  const { db, queues, logger } = deps;
  const { botId, scheduledFor } = tick;
  const slot = scheduledFor.getTime();

  const bot = await findBotWithSchedule(db, botId);
  if (!bot || bot.status !== 'active' || !bot.schedule?.active) {
    await disarmBotSchedule(deps, botId);
    logger.info(
      {
        botId,
        scheduledFor: slot,
        reason: !bot ? 'bot deleted' : bot.status !== 'active' ? 'bot paused' : 'schedule inactive',
      },
      'schedule tick skipped; job scheduler removed',
    );
    return 'skipped';
  }
  const { schedule } = bot;
  const spec = scheduleSpecOf(schedule);
  const timing = { intervalSeconds: schedule.intervalSeconds, cron: schedule.cron, timezone: schedule.timezone };
  /** Records the slot as handled (fired or skipped) and moves nextRunAt on; returns the next slot. */
  const recordSlot = async (fired: boolean): Promise<number | null> => {
    const next = (await nextTickOf(queues, botId)) ?? nextRunAfter(spec, scheduledFor)?.getTime() ?? null;
    await recordScheduledRun(db, {
      botId,
      slot: scheduledFor,
      nextRunAt: next === null ? null : new Date(next),
      timing,
      fired,
    });
    return next;
  };

  const fired = await triggerScheduledExecution(deps, {
    botId,
    organizationId: bot.organizationId,
    params: schedule.params as Record<string, unknown>,
    scheduledFor,
    overlap: schedule.overlap,
  });
  // Deleted in between (bot deleted): nothing left to run or record.
  if (fired.outcome === 'gone') return 'already-fired';
  if (fired.outcome === 'overlap-skipped' || fired.outcome === 'pending-cap-skipped') {
    const next = await recordSlot(false);
    if (fired.outcome === 'overlap-skipped')
      logger.info(
        { botId, scheduledFor: slot, nextRunAt: next },
        'schedule tick skipped; a run of the bot is unfinished',
      );
    else
      logger.warn(
        { botId, scheduledFor: slot, nextRunAt: next, pending: fired.pending, maxPending: fired.maxPending },
        'schedule tick skipped; the organization is at its pending cap',
      );
    return fired.outcome;
  }
  const { execution, outcome } = fired;

  const next = await recordSlot(true);
  if (outcome === 'fired')
    logger.info(
      { botId, executionId: execution.id, scheduledFor: slot, nextRunAt: next },
      'scheduled execution created',
    );
  else logger.debug({ botId, executionId: execution.id, scheduledFor: slot }, 'schedule tick already fired');
  return outcome;
}
