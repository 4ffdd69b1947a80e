import { setScheduleNextRun, type Db } from '@botfleet/db';
import type { Queues } from '@botfleet/queue';
import { disarmSchedule } from '@botfleet/queue';

/**
 * Stops a bot's schedule from firing: removes its job scheduler and clears `nextRunAt` (nothing
 * is due while the bot is paused or the schedule inactive). `active` is left as the user set
 * it, so resuming a paused bot re-arms its schedule on the next reconcile pass.
 */
export async function disarmBotSchedule(deps: { db: Db; queues: Queues }, botId: string): Promise<void> {
  await disarmSchedule(deps.queues, botId);
  await setScheduleNextRun(deps.db, botId, null);
}
