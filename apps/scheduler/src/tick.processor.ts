import { nextRunAfter, scheduleSpecOf, type Logger } from '@botfleet/core';
import {
  isUniqueViolation,
  createExecution,
  findBotWithSchedule,
  findScheduledExecution,
  hasUnfinishedExecution,
  recordScheduledRun,
  type Db,
  type Execution,
} from '@botfleet/db';
import {
  enqueueExecutionRuns,
  nextTickOf,
  schedulerIdOf,
  tickSlotOf,
  type Queues,
  type ScheduleTickPayload,
} from '@botfleet/queue';
import { UnrecoverableError, type Job } from 'bullmq';
import { disarmBotSchedule } from './disarm-bot-schedule';

export interface TickDeps {
  db: Db;
  queues: Queues;
  logger: Logger;
}

export type TickOutcome = 'fired' | 'already-fired' | 'skipped' | 'overlap-skipped';

/**
 * Processes one `schedule.tick`. The database decides, not the job: a tick for a bot that is
 * gone, paused or whose schedule is off disarms the scheduler and fires nothing. Otherwise it
 * creates the execution for the tick's slot; the unique (botId, scheduledFor) makes a second
 * processing of the same slot (another scheduler process, a retry, a stalled job) find the
 * first row instead of creating another. Every step is idempotent, so a crash between them is
 * repaired by BullMQ's retry. With overlap `skip`, a slot that comes while a run of the bot is
 * pending or running fires nothing (a slow bot never piles up runs). Registered with `consume(scheduleTick, ...)`, which parses the
 * payload first.
 */
export function createTickProcessor(deps: TickDeps) {
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
    const nextSlot = async () =>
      (await nextTickOf(queues, botId)) ?? nextRunAfter(spec, scheduledFor)?.getTime() ?? null;

    // A retry of a tick that already wrote its row finds it first, so the overlap check below
    // (which that very row would trip) cannot leave it without its job.
    let execution: Execution | null = await findScheduledExecution(db, botId, scheduledFor);
    let outcome: TickOutcome = execution ? 'already-fired' : 'fired';
    if (!execution && schedule.overlap === 'skip' && (await hasUnfinishedExecution(db, botId, scheduledFor))) {
      const next = await nextSlot();
      await recordScheduledRun(db, {
        botId,
        slot: scheduledFor,
        nextRunAt: next === null ? null : new Date(next),
        timing,
        fired: false,
      });
      logger.info(
        { botId, scheduledFor: slot, nextRunAt: next },
        'schedule tick skipped; a run of the bot is unfinished',
      );
      return 'overlap-skipped';
    }
    if (!execution) {
      try {
        execution = await createExecution(db, {
          botId,
          organizationId: bot.organizationId,
          trigger: 'schedule',
          params: schedule.params as Record<string, unknown>,
          scheduledFor,
        });
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        execution = await findScheduledExecution(db, botId, scheduledFor);
        // Deleted in between (bot deleted): nothing left to run or record.
        if (!execution) return 'already-fired';
        outcome = 'already-fired';
      }
    }
    // Job id = execution id: re-enqueueing one that is already queued is a no-op, and it repairs
    // a first attempt that wrote the row but died before enqueueing.
    if (execution.status === 'pending') await enqueueExecutionRuns(queues, bot.organizationId, [execution.id]);

    const next = await nextSlot();
    await recordScheduledRun(db, {
      botId,
      slot: scheduledFor,
      nextRunAt: next === null ? null : new Date(next),
      timing,
    });
    if (outcome === 'fired')
      logger.info(
        { botId, executionId: execution.id, scheduledFor: slot, nextRunAt: next },
        'scheduled execution created',
      );
    else logger.debug({ botId, executionId: execution.id, scheduledFor: slot }, 'schedule tick already fired');
    return outcome;
  };
}
