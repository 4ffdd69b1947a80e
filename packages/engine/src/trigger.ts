import { AppError, notFound } from '@botfleet/core';
import {
  findBotForTrigger,
  findOrganization,
  findScheduledExecution,
  hasUnfinishedExecution,
  isUniqueViolation,
  type BotForTrigger,
  type Execution,
} from '@botfleet/db';
import { createExecution, createExecutionAsJudged, createExecutionOnce, createExecutions } from '@botfleet/db/state';
import { enqueueExecutionRuns } from '@botfleet/queue';
import { enqueueAfterCommit, statusNotice } from './after-commit';
import { assertBotActive, assertPendingCapacity, exceedsPendingCap, type PendingCapExceeded } from './caps';
import type { EngineDeps } from './engine-deps';
import { assertTriggerParams } from './trigger-params';

/*
 * Triggers: the caps are checked and the params judged before anything is written; then the
 * `pending` row (a batch: all rows in one INSERT) is written, and only then is `execution.run`
 * enqueued, with the new runs' live notices in the same call to Redis. The row comes first: if
 * Redis refuses the job, the worker's sweeper finds the pending row and enqueues it later, so an
 * accepted trigger is never lost.
 */

const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

export interface TriggerInput {
  organizationId: string;
  /** The organization's own pending cap (the caller's `auth.limits`); null: MAX_PENDING_EXECUTIONS_PER_ORG. */
  organizationMaxPending: number | null;
  /** The caller's bot, as its route's loader found it (botToTrigger). */
  bot: BotForTrigger;
  params: Record<string, unknown>;
  idempotencyKey?: string;
}

/**
 * How often a trigger reads its bot again when each write finds it changed since the last read:
 * a write is only turned down by a change committed between a read and the write, so this is
 * reached only by a bot edited without pause while triggered.
 */
const MAX_BOT_READS = 3;

/**
 * Judges a trigger on its bot and writes its runs, on the bot as its route's loader found it,
 * which may be this process's memo of it (recentBotForTrigger, possibly stale). `write` writes
 * only while the bot is still active at the version judged (the *AsJudged inserts); a refusal,
 * and a write so turned down, are judged again on the bot as the database holds it now. So every
 * answer is the one the bot as it is now gives: no refusal from a stale memo, and no run of a
 * definition its params were not judged against.
 */
async function writeOnCurrentBot<T>(
  deps: EngineDeps,
  organizationId: string,
  loaded: BotForTrigger,
  judge: (bot: BotForTrigger) => void,
  write: (bot: BotForTrigger) => Promise<T | null>,
): Promise<T> {
  let bot = loaded;
  for (let reads = 0; reads < MAX_BOT_READS; reads++) {
    let refusal: unknown = null;
    try {
      judge(bot);
    } catch (err) {
      refusal = err;
    }
    if (refusal === null) {
      const written = await write(bot);
      if (written !== null) return written;
    } else if (reads > 0 || !(refusal instanceof AppError)) {
      throw refusal;
    }
    const current = await findBotForTrigger(deps.db, organizationId, bot.id);
    if (!current) throw notFound('Bot');
    bot = current;
  }
  throw new AppError('conflict', 'The bot changed while the trigger was being written; send it again');
}

/** One run of the bot; with an Idempotency-Key seen within 24 h, the first run instead (`created` false). */
export async function triggerExecution(
  deps: EngineDeps,
  input: TriggerInput & { rerunOf?: string },
): Promise<{ execution: Execution; created: boolean }> {
  const { db } = deps;
  const { execution, created } = await writeOnCurrentBot(
    deps,
    input.organizationId,
    input.bot,
    (bot) => {
      assertBotActive(bot);
      assertTriggerParams(bot, input.params);
    },
    async (bot) => {
      await assertPendingCapacity(db, deps.settings, {
        organizationId: input.organizationId,
        adding: 1,
        organizationMax: input.organizationMaxPending,
      });
      const newExecution = {
        botId: bot.id,
        botVersion: bot.version,
        organizationId: input.organizationId,
        trigger: input.rerunOf ? ('rerun' as const) : ('api' as const),
        params: input.params,
        ...(input.rerunOf ? { rerunOf: input.rerunOf } : {}),
      };
      const idempotencyKey = input.idempotencyKey;
      if (idempotencyKey)
        return createExecutionOnce(
          db,
          { ...newExecution, idempotencyKey },
          new Date(Date.now() - IDEMPOTENCY_WINDOW_MS),
        );
      const written = await createExecutionAsJudged(db, newExecution);
      return written && { execution: written, created: true };
    },
  );
  if (!created && execution.botId !== input.bot.id)
    throw new AppError('conflict', 'This Idempotency-Key was already used to trigger another bot');

  if (created)
    await enqueueAfterCommit(deps.logger, { executionId: execution.id }, () =>
      enqueueExecutionRuns(deps.queues, input.organizationId, [execution.id], [statusNotice(execution)]),
    );
  return { execution, created };
}

export interface RerunInput {
  organizationId: string;
  organizationMaxPending: number | null;
  /** The execution to run again, as its route's loader found it. */
  execution: Pick<Execution, 'id' | 'botId' | 'params'>;
  /** New params; the execution's own when omitted. */
  params?: Record<string, unknown>;
}

/** A new run of an execution's bot with its params (or new ones), with trigger `rerun`. */
export async function rerunExecution(deps: EngineDeps, input: RerunInput): Promise<Execution> {
  const bot = await findBotForTrigger(deps.db, input.organizationId, input.execution.botId);
  if (!bot) throw notFound('Bot');
  const { execution } = await triggerExecution(deps, {
    organizationId: input.organizationId,
    organizationMaxPending: input.organizationMaxPending,
    bot,
    params: input.params ?? (input.execution.params as Record<string, unknown>),
    rerunOf: input.execution.id,
  });
  return execution;
}

export interface BatchInput {
  organizationId: string;
  organizationMaxPending: number | null;
  bot: BotForTrigger;
  runs: { params?: Record<string, unknown> }[];
}

interface ParamProblem {
  path: string;
  message: string;
}

/**
 * Many runs of the bot at once. Every run's params are checked before anything is written, so one
 * bad run refuses the whole batch with every problem named by its path (`runs.17.params.city`).
 * Then all rows are written in one statement and all jobs added in one `addBulk`, with their
 * fair-share priorities. Returns the new ids, in the order of the runs.
 */
export async function triggerExecutionBatch(deps: EngineDeps, input: BatchInput): Promise<string[]> {
  const { bot } = input;
  const params = input.runs.map((run) => run.params ?? {});
  const ids = await writeOnCurrentBot(
    deps,
    input.organizationId,
    bot,
    (current) => {
      assertBotActive(current);
      const problems = params.flatMap((p, i) =>
        paramProblems(current, p).map((q) => ({ ...q, path: `runs.${i}.${q.path}` })),
      );
      if (problems.length > 0) {
        const first = problems[0]!;
        const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
        throw new AppError('validation_error', `${first.path} ${first.message}${more}; no run was created`, problems);
      }
    },
    async (current) => {
      await assertPendingCapacity(deps.db, deps.settings, {
        organizationId: input.organizationId,
        adding: params.length,
        organizationMax: input.organizationMaxPending,
      });
      return createExecutions(deps.db, {
        botId: current.id,
        botVersion: current.version,
        organizationId: input.organizationId,
        params,
      });
    },
  );
  const created = { organizationId: input.organizationId, botId: bot.id, status: 'pending', attempt: 0 } as const;
  await enqueueAfterCommit(deps.logger, { botId: bot.id, runs: ids.length }, () =>
    enqueueExecutionRuns(
      deps.queues,
      input.organizationId,
      ids,
      ids.map((id) => statusNotice({ id, ...created })),
    ),
  );
  return ids;
}

/** The run's param problems as assertTriggerParams words them, with paths under `params.`. */
function paramProblems(bot: BotForTrigger, params: Record<string, unknown>): ParamProblem[] {
  try {
    assertTriggerParams(bot, params);
    return [];
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    if (Array.isArray(err.details)) return err.details as ParamProblem[];
    // Unknown parameter: its details name the parameter (and a suggestion), not a path.
    const parameter = (err.details as { parameter?: string } | undefined)?.parameter ?? '';
    return [{ path: `params.${parameter}`, message: err.message }];
  }
}

export interface ScheduledSlot {
  botId: string;
  organizationId: string;
  params: Record<string, unknown>;
  /** The slot of the bot's job scheduler this run belongs to. */
  scheduledFor: Date;
  /** `skip`: no run while another of the bot is pending or running. */
  overlap: 'skip' | 'allow';
}

/** What a schedule tick's slot came to. */
export type ScheduledTrigger =
  | { outcome: 'fired' | 'already-fired'; execution: Execution }
  /** Another run of the bot is unfinished (overlap `skip`): the slot fires nothing. */
  | { outcome: 'overlap-skipped' }
  /** The organization is at its pending cap: the slot fires nothing, as an API trigger would be refused. */
  | ({ outcome: 'pending-cap-skipped' } & PendingCapExceeded)
  /** The bot was deleted while the slot was being fired. */
  | { outcome: 'gone' };

/**
 * The run of one schedule slot. The unique (botId, scheduledFor) makes a second processing of the
 * same slot (another scheduler process, a retry, a stalled job) find the first row instead of
 * creating another; a slot whose row exists but whose job was lost is enqueued again (job id =
 * execution id makes that a no-op when the job is there). The caller has checked the bot is
 * active and its schedule on.
 */
export async function triggerScheduledExecution(deps: EngineDeps, slot: ScheduledSlot): Promise<ScheduledTrigger> {
  const { db } = deps;
  // A retry of a tick that already wrote its row finds it first, so neither the overlap check
  // (which that very row would trip) nor the pending cap can leave it without its job.
  let execution: Execution | null = await findScheduledExecution(db, slot.botId, slot.scheduledFor);
  let outcome: 'fired' | 'already-fired' = execution ? 'already-fired' : 'fired';
  if (!execution) {
    if (slot.overlap === 'skip' && (await hasUnfinishedExecution(db, slot.botId, slot.scheduledFor)))
      return { outcome: 'overlap-skipped' };
    const organization = await findOrganization(db, slot.organizationId);
    const exceeded = await exceedsPendingCap(db, deps.settings, {
      organizationId: slot.organizationId,
      adding: 1,
      organizationMax: organization?.limits.maxPendingExecutions ?? null,
    });
    if (exceeded) return { outcome: 'pending-cap-skipped', ...exceeded };
    try {
      execution = await createExecution(db, {
        botId: slot.botId,
        organizationId: slot.organizationId,
        trigger: 'schedule',
        params: slot.params,
        scheduledFor: slot.scheduledFor,
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      execution = await findScheduledExecution(db, slot.botId, slot.scheduledFor);
      if (!execution) return { outcome: 'gone' };
      outcome = 'already-fired';
    }
  }
  const { id, status } = execution;
  // A fired slot's row is new, so pending: its notice goes out with its enqueue.
  if (status === 'pending')
    await enqueueAfterCommit(deps.logger, { executionId: id, botId: slot.botId }, () =>
      enqueueExecutionRuns(
        deps.queues,
        slot.organizationId,
        [id],
        outcome === 'fired' ? [statusNotice(execution)] : [],
      ),
    );
  return { outcome, execution };
}
