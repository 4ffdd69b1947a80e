import type { BotListing } from '@botfleet/db';
import type { BotDetail, BotSummary } from '../contracts/bots.contract';
import { nextRunOf } from './schedule.view';
import { ms } from './time';

/** GET /bots and GET /bots/:botId show a bot's last run and schedule alike (bot-list.ts reads both in one query). */
export function toBotSummary(bot: BotListing): BotSummary {
  const { lastExecution, schedule } = bot;
  return {
    id: bot.id,
    name: bot.name,
    targetUrl: bot.targetUrl,
    kind: bot.kind,
    status: bot.status,
    tags: bot.tags,
    createdAt: bot.createdAt.getTime(),
    lastRunAt: ms(bot.lastRunAt),
    lastExecution: lastExecution && {
      id: lastExecution.id,
      status: lastExecution.status,
      createdAt: lastExecution.createdAt.getTime(),
      completedAt: ms(lastExecution.completedAt),
    },
    schedule: schedule && {
      active: schedule.active,
      interval: schedule.intervalSeconds,
      cron: schedule.cron,
      timezone: schedule.timezone,
      nextRunAt: ms(nextRunOf(schedule, bot)),
    },
  };
}

export function toBotDetail(bot: BotListing): BotDetail {
  return {
    ...toBotSummary(bot),
    description: bot.description,
    retry: { attempts: bot.retryAttempts, delaySeconds: bot.retryDelaySeconds },
    version: bot.version,
    updatedAt: bot.updatedAt.getTime(),
  };
}
