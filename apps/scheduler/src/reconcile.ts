import { scheduleSpecOf, type Logger } from '@botfleet/core';
import { listRunnableSchedules, setScheduleNextRun, type Db } from '@botfleet/db';
import { armedMatches, armPlan, armSchedule, listArmedSchedules, type Queues } from '@botfleet/queue';
import { disarmBotSchedule } from './disarm-bot-schedule';

export interface ReconcileDeps {
  db: Db;
  queues: Queues;
  logger: Logger;
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
 * Redis is read before the database. The API writes the row before it arms, so a scheduler
 * seen here has its row visible to the later read: a schedule just activated is never mistaken
 * for a stale one and disarmed. The opposite race (armed here just after the API disarmed it)
 * leaves a scheduler whose next tick re-checks the row, fires nothing and disarms it.
 */
export async function reconcileSchedules(deps: ReconcileDeps): Promise<ReconcileResult> {
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
