import { fireScheduleTick, type EngineDeps, type TickOutcome } from '@botfleet/engine';
import { schedulerIdOf, tickSlotOf, type ConsumedJob, type ScheduleTickPayload } from '@botfleet/queue';
import { UnrecoverableError } from 'bullmq';

/** The engine's dependencies; `settings.maxPendingExecutionsPerOrg` is the pending cap a slot respects. */
export type ScheduleTickProcessorDeps = EngineDeps;

/**
 * Processes one `schedule.tick`: reads the slot from the job's id (one job per slot, the same id
 * in every process) and hands it to the engine's fireScheduleTick, which decides whether it fires
 * and writes what it came to. A job that did not come from the bot's job scheduler has no slot
 * and is failed without retries. Registered with `consume(scheduleTick, ...)`, which parses the
 * payload first.
 */
export function createScheduleTickProcessor(deps: ScheduleTickProcessorDeps) {
  return async function processTick({ botId }: ScheduleTickPayload, job: ConsumedJob): Promise<TickOutcome> {
    const slot = tickSlotOf(job.id, schedulerIdOf(botId));
    if (slot === null)
      throw new UnrecoverableError(`schedule.tick ${job.id} did not come from the bot's job scheduler`);
    return fireScheduleTick(deps, { botId, scheduledFor: new Date(slot) });
  };
}
