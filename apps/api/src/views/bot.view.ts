import type { Bot } from '@botfleet/db';
import type { BotDetail, BotSummary } from '../routes/bots.contract';

export function toBotSummary(bot: Bot): BotSummary {
  return {
    id: bot.id,
    name: bot.name,
    targetUrl: bot.targetUrl,
    kind: bot.kind,
    status: bot.status,
    tags: bot.tags,
    createdAt: bot.createdAt.getTime(),
  };
}

export function toBotDetail(bot: Bot): BotDetail {
  return {
    ...toBotSummary(bot),
    description: bot.description,
    retry: { attempts: bot.retryAttempts, delaySeconds: bot.retryDelaySeconds },
    updatedAt: bot.updatedAt.getTime(),
  };
}
