import { AppError, validateParams, type Logger } from '@botfleet/core';
import {
  createExecution,
  createExecutionOnce,
  type BotForTrigger,
  type Execution,
  type PrismaClient,
} from '@botfleet/db';
import { executionRun, type Queues } from '@botfleet/queue';

const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export interface TriggerInput {
  organizationId: string;
  /** The caller's bot, as its route's loader found it (botToTrigger). */
  bot: BotForTrigger;
  params: Record<string, unknown>;
  idempotencyKey?: string;
}

/**
 * Checks the bot and params, writes the pending row, then enqueues its job. The row comes first:
 * if Redis refuses the job, the worker's sweeper finds the pending row and enqueues it later,
 * so an accepted trigger is never lost.
 */
export async function triggerExecution(
  deps: { db: PrismaClient; queues: Queues; logger: Logger },
  input: TriggerInput,
): Promise<{ execution: Execution; created: boolean }> {
  const { db } = deps;
  const { bot } = input;
  if (bot.status === 'paused')
    throw new AppError('conflict', 'Bot is paused; resume it (PATCH status: active) to run it');
  validateParams(bot.parameters, input.params);

  const newExecution = {
    botId: bot.id,
    organizationId: input.organizationId,
    trigger: 'api' as const,
    params: input.params,
  };
  const idempotencyKey = input.idempotencyKey;
  const { execution, created } = !idempotencyKey
    ? { execution: await createExecution(db, newExecution), created: true }
    : await createExecutionOnce(db, { ...newExecution, idempotencyKey }, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS));
  if (!created && execution.botId !== bot.id)
    throw new AppError('conflict', 'This Idempotency-Key was already used to trigger another bot');

  if (created) {
    try {
      await executionRun.enqueue(deps.queues, { executionId: execution.id });
    } catch (err) {
      deps.logger.warn(
        { executionId: execution.id, err: (err as Error).message },
        'enqueue failed; the sweeper will enqueue the pending execution',
      );
    }
  }
  return { execution, created };
}
