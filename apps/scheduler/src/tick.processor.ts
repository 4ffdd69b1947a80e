import type { Logger } from '@botfleet/core';
import {
  createExecution,
  findBotWithSchedule,
  findScheduledExecution,
  recordScheduledRun,
  type Db,
  type Execution,
} from '@botfleet/db';
import {
  executionRun,
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

export type TickOutcome = 'fired' | 'already-fired' | 'skipped';

const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === 'P2002';

/**
 * Processes one `schedule.tick`. The database decides, not the job: a tick for a bot that is
 * gone, paused or whose schedule is off disarms the scheduler and fires nothing. Otherwise it
 * creates the execution for the tick's slot; the unique (botId, scheduledFor) makes a second
 * processing of the same slot (another scheduler process, a retry, a stalled job) find the
 * first row instead of creating another. Every step is idempotent, so a crash between them is
 * repaired by BullMQ's retry. Registered with `consume(scheduleTick, ...)`, which parses the
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
    const intervalSeconds = bot.schedule.intervalSeconds;

    let execution: Execution;
    let outcome: TickOutcome = 'fired';
    try {
      execution = await createExecution(db, {
        botId,
        organizationId: bot.organizationId,
        trigger: 'schedule',
        params: {},
        scheduledFor,
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const existing = await findScheduledExecution(db, botId, scheduledFor);
      // Deleted in between (bot deleted): nothing left to run or record.
      if (!existing) return 'already-fired';
      execution = existing;
      outcome = 'already-fired';
    }
    // Job id = execution id: re-enqueueing one that is already queued is a no-op, and it repairs
    // a first attempt that wrote the row but died before enqueueing.
    if (execution.status === 'pending') await executionRun.enqueue(queues, { executionId: execution.id });

    const next = (await nextTickOf(queues, botId)) ?? slot + intervalSeconds * 1000;
    await recordScheduledRun(db, { botId, slot: scheduledFor, nextRunAt: new Date(next), intervalSeconds });
    if (outcome === 'fired')
      logger.info(
        { botId, executionId: execution.id, scheduledFor: slot, nextRunAt: next },
        'scheduled execution created',
      );
    else logger.debug({ botId, executionId: execution.id, scheduledFor: slot }, 'schedule tick already fired');
    return outcome;
  };
}
