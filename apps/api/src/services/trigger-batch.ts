import { AppError, type Logger } from '@botfleet/core';
import { createExecutions, type BotForTrigger, type PrismaClient } from '@botfleet/db';
import { enqueueExecutionRuns, type Queues } from '@botfleet/queue';
import { assertPendingCapacity } from './pending-cap';
import { assertTriggerParams } from './trigger-params';

export interface BatchInput {
  organizationId: string;
  /** The organization's own pending cap (the caller's `auth.limits`); null: MAX_PENDING_EXECUTIONS_PER_ORG. */
  organizationMaxPending: number | null;
  bot: BotForTrigger;
  runs: { params?: Record<string, unknown> }[];
}

interface Problem {
  path: string;
  message: string;
}

/**
 * Checks every run's params before anything is written, so one bad run refuses the whole batch
 * with every problem named by its path (`runs.17.params.city`). Then writes all rows in one
 * statement and adds all jobs in one `addBulk`, with their fair-share priorities. As for a single trigger, the rows come first: if
 * Redis refuses the jobs, the worker's sweeper enqueues the pending rows later.
 */
export async function triggerBatch(
  deps: { db: PrismaClient; queues: Queues; logger: Logger; settings?: { maxPendingExecutionsPerOrg?: number } },
  input: BatchInput,
): Promise<string[]> {
  const { bot } = input;
  if (bot.status === 'paused')
    throw new AppError('conflict', 'Bot is paused; resume it (PATCH status: active) to run it');
  const params = input.runs.map((run) => run.params ?? {});
  const problems = params.flatMap((p, i) => paramProblems(bot, p).map((q) => ({ ...q, path: `runs.${i}.${q.path}` })));
  if (problems.length > 0) {
    const first = problems[0]!;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    throw new AppError('validation_error', `${first.path} ${first.message}${more}; no run was created`, problems);
  }

  await assertPendingCapacity(deps.db, {
    organizationId: input.organizationId,
    adding: params.length,
    organizationMax: input.organizationMaxPending,
    defaultMax: deps.settings?.maxPendingExecutionsPerOrg,
  });
  const ids = await createExecutions(deps.db, { botId: bot.id, organizationId: input.organizationId, params });
  try {
    await enqueueExecutionRuns(deps.queues, input.organizationId, ids);
  } catch (err) {
    deps.logger.warn(
      { botId: bot.id, runs: ids.length, err: (err as Error).message },
      'bulk enqueue failed; the sweeper will enqueue the pending executions',
    );
  }
  return ids;
}

/** The run's param problems as assertTriggerParams words them, with paths under `params.`. */
function paramProblems(bot: BotForTrigger, params: Record<string, unknown>): Problem[] {
  try {
    assertTriggerParams(bot, params);
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (Array.isArray(err.details)) return err.details as Problem[];
    // Unknown parameter: its details name the parameter (and a suggestion), not a path.
    const parameter = (err.details as { parameter?: string } | undefined)?.parameter ?? '';
    return [{ path: `params.${parameter}`, message: err.message }];
  }
}
