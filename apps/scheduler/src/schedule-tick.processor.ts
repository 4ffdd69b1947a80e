import { nextRunAfter, scheduleSpecOf } from '@botfleet/core';
import { findBotWithSchedule, recordScheduledRun } from '@botfleet/db';
import { triggerScheduledExecution, type EngineDeps } from '@botfleet/engine';
import { nextTickOf, schedulerIdOf, tickSlotOf, type ScheduleTickPayload } from '@botfleet/queue';
import { UnrecoverableError, type Job } from 'bullmq';
import { disarmBotSchedule } from './disarm-bot-schedule';

/** The engine's dependencies; `settings.maxPendingExecutionsPerOrg` is the pending cap a slot respects. */
export type ScheduleTickProcessorDeps = EngineDeps;

export type TickOutcome = 'fired' | 'already-fired' | 'skipped' | 'overlap-skipped' | 'pending-cap-skipped';

/**
 * Processes one `schedule.tick`. The database decides, not the job: a tick for a bot that is
 * gone, paused or whose schedule is off disarms the scheduler and fires nothing. Otherwise the
 * engine fires the slot (triggerScheduledExecution: one execution per slot, however often it is
 * processed). A slot fires nothing, and only moves `nextRunAt` on, while a run of the bot is
 * pending or running under overlap `skip` (a slow bot never piles up runs), or while the
 * organization is at its pending cap (as an API trigger would be refused; logged as a warning
 * and counted in botfleet_schedule_ticks_skipped_total). Every step is idempotent, so a crash
 * between them is repaired by BullMQ's retry. Registered with `consume(scheduleTick, ...)`,
 * which parses the payload first.
 */
export function createScheduleTickProcessor(deps: ScheduleTickProcessorDeps) {
  const { db, queues, logger } = deps;

  return async function processTick({ botId }: ScheduleTickPayload, job: Job<unknown>): Promise<TickOutcome> {
    const slot = tickSlotOf(job.id, schedulerIdOf(botId));
    if (slot === null)
      throw new UnrecoverableError(`schedule.tick ${job.id} did not come from the bot's job scheduler`);
    const scheduledFor = new Date(slot);

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
  };
}
