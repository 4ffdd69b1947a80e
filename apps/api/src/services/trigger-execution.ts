import { AppError, type Logger } from '@botfleet/core';
import {
  createExecution,
  createExecutionOnce,
  type BotForTrigger,
  type Execution,
  type PrismaClient,
} from '@botfleet/db';
import { enqueueExecutionRuns, type Queues } from '@botfleet/queue';
import { assertPendingCapacity } from './pending-cap';
import { assertTriggerParams } from './trigger-params';

const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export interface TriggerInput {
  organizationId: string;
  /** The organization's own pending cap (the caller's `auth.limits`); null: MAX_PENDING_EXECUTIONS_PER_ORG. */
  organizationMaxPending: number | null;
  /** The caller's bot, as its route's loader found it (botToTrigger). */
  bot: BotForTrigger;
  params: Record<string, unknown>;
  idempotencyKey?: string;
  /** A rerun of this execution (trigger "rerun"); a plain trigger otherwise. */
  rerunOf?: string;
}

/**
 * Checks the bot and params, writes the pending row, then enqueues its job. The row comes first:
 * if Redis refuses the job, the worker's sweeper finds the pending row and enqueues it later,
 * so an accepted trigger is never lost.
 */
export async function triggerExecution(
  deps: { db: PrismaClient; queues: Queues; logger: Logger; settings?: { maxPendingExecutionsPerOrg?: number } },
  input: TriggerInput,
): Promise<{ execution: Execution; created: boolean }> {
  const { db } = deps;
  const { bot } = input;
  if (bot.status === 'paused')
    throw new AppError('conflict', 'Bot is paused; resume it (PATCH status: active) to run it');
  assertTriggerParams(bot, input.params);
  await assertPendingCapacity(db, {
    organizationId: input.organizationId,
    adding: 1,
    organizationMax: input.organizationMaxPending,
    defaultMax: deps.settings?.maxPendingExecutionsPerOrg,
  });

  const newExecution = {
    botId: bot.id,
    organizationId: input.organizationId,
    trigger: input.rerunOf ? ('rerun' as const) : ('api' as const),
    params: input.params,
    ...(input.rerunOf ? { rerunOf: input.rerunOf } : {}),
  };
  const idempotencyKey = input.idempotencyKey;
  const { execution, created } = !idempotencyKey
    ? { execution: await createExecution(db, newExecution), created: true }
    : await createExecutionOnce(db, { ...newExecution, idempotencyKey }, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS));
  if (!created && execution.botId !== bot.id)
    throw new AppError('conflict', 'This Idempotency-Key was already used to trigger another bot');

  if (created) {
    try {
      await enqueueExecutionRuns(deps.queues, input.organizationId, [execution.id]);
    } catch (err) {
      deps.logger.warn(
        { executionId: execution.id, err: (err as Error).message },
        'enqueue failed; the sweeper will enqueue the pending execution',
      );
    }
  }
  return { execution, created };
}
