import { AppError, notFound, validateParams, type Logger } from '@botfleet/core';
import { createExecution, findBotForTrigger, findByIdempotencyKey, type Execution, type PrismaClient } from '@botfleet/db';
import { enqueueExecution, type Queues } from '@botfleet/queue';

const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export interface TriggerInput {
  organizationId: string;
  botId: string;
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
  const bot = await findBotForTrigger(db, input.organizationId, input.botId);
  if (!bot) throw notFound('Bot');
  if (bot.status === 'paused') throw new AppError('conflict', 'Bot is paused; resume it (PATCH status: active) to run it');
  validateParams(bot.parameters, input.params);

  const newExecution = { botId: bot.id, organizationId: input.organizationId, trigger: 'api' as const, params: input.params };
  const idempotencyKey = input.idempotencyKey;
  const { execution, created } = !idempotencyKey
    ? { execution: await createExecution(db, newExecution), created: true }
    : await db.$transaction(async (tx) => {
        // Serialises concurrent requests with the same key, so exactly one creates the execution.
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${input.organizationId}:${idempotencyKey}`}, 0))`;
        const existing = await findByIdempotencyKey(tx, input.organizationId, idempotencyKey, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS));
        if (existing) {
          if (existing.botId !== bot.id) throw new AppError('conflict', 'This Idempotency-Key was already used to trigger another bot');
          return { execution: existing, created: false };
        }
        return { execution: await createExecution(tx, { ...newExecution, idempotencyKey }), created: true };
      });

  if (created) {
    try {
      await enqueueExecution(deps.queues, execution.id);
    } catch (err) {
      deps.logger.warn({ executionId: execution.id, err: (err as Error).message }, 'enqueue failed; the sweeper will enqueue the pending execution');
    }
  }
  return { execution, created };
}
