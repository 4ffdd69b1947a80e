import type { ArtifactUrlSettings, Logger } from '@botfleet/core';
import {
  claimExecution,
  claimExecutionWithinCap,
  failUnfinishedExecution,
  requeueExecutionForRetry,
  type ClaimedExecution,
  type PrismaClient,
} from '@botfleet/db';
import { advanceStartClock, executionRun, type ExecutionRunPayload, type Queues } from '@botfleet/queue';
import type { FleetMetrics } from '@botfleet/ops';
import {
  CANCELLED_MESSAGE,
  executionTimeoutMs,
  InfrastructureError,
  runExecution,
  type AdBlocker,
  type BrowserHost,
  type EgressGuard,
  type ProxyPool,
} from '@botfleet/runner';
import { DelayedError, WaitingError, type Job } from 'bullmq';
import type { Cancellations } from './cancellations';
import { completeExecution, type RunOutcome } from './complete-execution';
import { createDbRunSession, type DbRunSession } from './db-run-session';
import { loadProgram } from './load-program';

const FLUSH_EVERY_MS = 1_000;
/** How long a run whose organization is at MAX_RUNNING_EXECUTIONS_PER_ORG waits before it asks again. */
const AT_CAPACITY_RECHECK_MS = 1_000;

export interface ProcessorDeps {
  db: PrismaClient;
  queues: Queues;
  logger: Logger;
  browserHost: BrowserHost;
  proxyPool: ProxyPool;
  adBlocker?: AdBlocker;
  egressGuard?: EgressGuard;
  cancellations: Cancellations;
  defaultTimeoutSeconds: number;
  /** MAX_RUNNING_EXECUTIONS_PER_ORG: an organization's runs going at once across the fleet (unset: no cap). */
  maxRunningPerOrganization?: number;
  /** Signs the screenshot URL of an `execution.failed` event; without it the event's URL is null. */
  artifactUrls?: ArtifactUrlSettings;
  /** Counts runs in flight and finished runs; optional so tests can leave it out. */
  metrics?: Pick<FleetMetrics, 'executionsRunning' | 'executionsTotal' | 'executionDuration'>;
  /**
   * Aborted when the worker's drain deadline passes during shutdown: runs still going stop and
   * their jobs go back to the queue (a deploy must never fail a run).
   */
  shutdownSignal?: AbortSignal;
}

const isLastAttempt = (job: Job<unknown>) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

/**
 * Runs one execution end to end. Bot failures (selector, timeout, page errors) end it `failed`
 * at once; infrastructure failures are rethrown so BullMQ retries them, and on the last attempt
 * the execution is failed here rather than left running. A bot failure is retried within the same
 * execution when the bot's retry policy allows another try (see retryBotFailure). Registered with `consume(executionRun, ...)`,
 * which parses the payload first.
 */
export function createExecutionProcessor(deps: ProcessorDeps) {
  const { db, logger } = deps;

  async function processExecution({ executionId }: ExecutionRunPayload, job: Job<unknown>): Promise<void> {
    // Listen before claiming: a cancel published between the claim and the run must not be missed.
    const tracking = deps.cancellations.track(executionId);
    try {
      await runClaimed(job, executionId, tracking.signal);
    } finally {
      tracking.done();
    }
  }

  async function runClaimed(job: Job<unknown>, executionId: string, cancelSignal: AbortSignal): Promise<void> {
    const cap = deps.maxRunningPerOrganization;
    const claimed = cap ? await claimExecutionWithinCap(db, executionId, cap) : await claimExecution(db, executionId);
    if (!claimed) {
      logger.debug({ executionId }, 'execution already ended, cancelled or deleted; nothing to run');
      return;
    }
    if (claimed === 'at-capacity') {
      // The row stays pending; the job keeps its fair-share priority and comes back shortly,
      // while other organizations' runs take the slot.
      logger.debug({ executionId }, 'organization at its running cap; the run waits');
      await job.moveToDelayed(Date.now() + AT_CAPACITY_RECHECK_MS, job.token);
      throw new DelayedError();
    }
    // Fair share: other organizations' new runs now queue behind this point, not behind the backlog.
    await advanceStartClock(deps.queues, job.opts.priority).catch((err: unknown) =>
      logger.warn({ executionId, err: (err as Error).message }, 'could not advance the fair-share clock'),
    );
    deps.metrics?.executionsRunning.inc();
    try {
      await runAttempt(job, executionId, claimed, cancelSignal);
    } finally {
      deps.metrics?.executionsRunning.dec();
    }
  }

  async function runAttempt(
    job: Job<unknown>,
    executionId: string,
    claimed: ClaimedExecution,
    cancelSignal: AbortSignal,
  ): Promise<void> {
    const startedAt = performance.now();
    const { shutdownSignal } = deps;
    const signal = shutdownSignal ? AbortSignal.any([cancelSignal, shutdownSignal]) : cancelSignal;
    const log = logger.child({ executionId, attempt: claimed.attempt });
    const loaded = await loadProgram(db, claimed.botId);
    if (!loaded) return;

    const timeoutMs = executionTimeoutMs(loaded.manifest.capabilities, deps.defaultTimeoutSeconds);
    const session = createDbRunSession({
      db,
      executionId,
      params: claimed.params,
      deadline: Date.now() + timeoutMs,
      attempt: claimed.attempt,
    });
    session.log(
      'info',
      'system',
      `Attempt ${claimed.attempt} started: ${loaded.description}, timeout ${timeoutMs / 1000} s`,
    );

    let flushing: Promise<void> = Promise.resolve();
    const flusher = setInterval(() => {
      flushing = flushing
        .then(() => session.flush())
        .catch((err: unknown) => log.warn({ err: (err as Error).message }, 'progress flush failed'));
    }, FLUSH_EVERY_MS);

    let outcome: RunOutcome;
    // Only a failure the bot caused (a step, the page, the timeout) may use the bot's retry policy.
    let botOutcome = true;
    try {
      outcome = await runExecution({
        browserHost: deps.browserHost,
        targetUrl: loaded.bot.targetUrl,
        capabilities: loaded.manifest.capabilities,
        timeoutMs,
        proxyPool: deps.proxyPool,
        adBlocker: deps.adBlocker,
        egressGuard: deps.egressGuard,
        session,
        program: loaded.program,
        signal,
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const infrastructure = err instanceof InfrastructureError;
      session.log('error', 'system', `${infrastructure ? 'Infrastructure failure' : 'Unexpected error'}: ${message}`);
      if (!isLastAttempt(job)) {
        log.warn({ err: message }, 'execution attempt failed; BullMQ will retry it');
        throw err;
      }
      botOutcome = false;
      outcome = {
        status: 'failed',
        error: `Execution could not run after ${job.attemptsMade + 1} attempt(s): ${message}`,
        stepIndex: null,
      };
    } finally {
      clearInterval(flusher);
      await flushing;
    }

    // Stopped by the drain deadline, not by a user: the run goes back to the queue untouched
    // (still `running`; the next claim starts attempt N+1), and the job never counts as failed.
    if (
      shutdownSignal?.aborted &&
      !cancelSignal.aborted &&
      outcome.status === 'failed' &&
      outcome.error === CANCELLED_MESSAGE
    ) {
      session.log('warn', 'system', 'Worker shutting down: the execution goes back to the queue to run again');
      await session.flush().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'progress flush failed'));
      await job.moveToWait(job.token);
      log.info('execution handed back to the queue at the shutdown deadline');
      throw new WaitingError();
    }
    if (signal.aborted) session.log('info', 'system', 'Execution was cancelled');
    else if (botOutcome && outcome.status === 'failed' && claimed.attempt <= loaded.bot.retryAttempts) {
      await retryBotFailure(job, claimed, loaded.bot, outcome.error, session, log);
      return;
    }
    const finished = await completeExecution(
      deps,
      { executionId, botId: claimed.botId, attempt: claimed.attempt, session },
      outcome,
    );
    log.info({ status: finished ? outcome.status : 'superseded' }, 'execution finished');
    if (finished) {
      deps.metrics?.executionsTotal.inc({ status: outcome.status, trigger: claimed.trigger });
      deps.metrics?.executionDuration.observe({ status: outcome.status }, (performance.now() - startedAt) / 1000);
    }
  }

  /**
   * Gives the bot another try in the same execution: this try's logs are written (they say which
   * try wrote them), the row goes back to `pending` (if this try still owns it: a cancel wins),
   * and the job waits `retry.delaySeconds` in BullMQ before any worker claims it as the next try,
   * which clears this try's step outputs. A crash in between leaves a pending row with its job,
   * which runs as usual. Throws BullMQ's DelayedError/WaitingError so the job is not completed.
   */
  async function retryBotFailure(
    job: Job<unknown>,
    claimed: ClaimedExecution,
    bot: { retryAttempts: number; retryDelaySeconds: number },
    error: string,
    session: DbRunSession,
    log: Logger,
  ): Promise<void> {
    const delayMs = bot.retryDelaySeconds * 1000;
    const next = claimed.attempt + 1;
    const when = delayMs > 0 ? `in ${bot.retryDelaySeconds} s` : 'now';
    session.log('warn', 'system', `Attempt ${claimed.attempt} failed: ${error}`);
    session.log('info', 'system', `Retrying ${when}: try ${next} of ${bot.retryAttempts + 1}`);
    await session.flush();
    if (!(await requeueExecutionForRetry(db, claimed.id, claimed.attempt))) {
      log.info('execution ended meanwhile (cancelled); no retry');
      return;
    }
    log.info({ delayMs, next }, 'bot failure; the execution will be tried again');
    if (delayMs > 0) {
      await job.moveToDelayed(Date.now() + delayMs, job.token);
      throw new DelayedError();
    }
    await job.moveToWait(job.token);
    throw new WaitingError();
  }

  return processExecution;
}

/** BullMQ gave up on a job (retries used up, or it stalled too often): never leave the row running. */
export async function failAbandonedExecution(
  db: PrismaClient,
  job: Job<unknown> | undefined,
  reason: string,
): Promise<void> {
  if (!job || job.name !== executionRun.name) return;
  const payload = executionRun.schema.safeParse(job.data);
  if (!payload.success) return;
  await failUnfinishedExecution(db, payload.data.executionId, `Execution could not be completed: ${reason}`);
}
