import type { Logger } from '@botfleet/core';
import { claimExecution, failUnfinishedExecution, type PrismaClient } from '@botfleet/db';
import { executionRun, type ExecutionRunPayload, type Queues } from '@botfleet/queue';
import {
  executionTimeoutMs,
  InfrastructureError,
  runExecution,
  type AdBlocker,
  type BrowserHost,
  type EgressGuard,
  type ProxyPool,
} from '@botfleet/runner';
import type { Job } from 'bullmq';
import type { Cancellations } from './cancellations';
import { completeExecution, type RunOutcome } from './complete-execution';
import { createDbRunSession } from './db-run-session';
import { loadProgram } from './load-program';

const FLUSH_EVERY_MS = 1_000;

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
}

const isLastAttempt = (job: Job<unknown>) => job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

/**
 * Runs one execution end to end. Bot failures (selector, timeout, page errors) end it `failed`
 * at once; infrastructure failures are rethrown so BullMQ retries them, and on the last attempt
 * the execution is failed here rather than left running. Registered with `consume(executionRun, ...)`,
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

  async function runClaimed(job: Job<unknown>, executionId: string, signal: AbortSignal): Promise<void> {
    const claimed = await claimExecution(db, executionId);
    if (!claimed) {
      logger.debug({ executionId }, 'execution already ended, cancelled or deleted; nothing to run');
      return;
    }
    const log = logger.child({ executionId, attempt: claimed.attempt });
    const loaded = await loadProgram(db, claimed.botId);
    if (!loaded) return;

    const timeoutMs = executionTimeoutMs(loaded.manifest.capabilities, deps.defaultTimeoutSeconds);
    const session = createDbRunSession({ db, executionId, params: claimed.params, deadline: Date.now() + timeoutMs });
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
      outcome = {
        status: 'failed',
        error: `Execution could not run after ${job.attemptsMade + 1} attempt(s): ${message}`,
        stepIndex: null,
      };
    } finally {
      clearInterval(flusher);
      await flushing;
    }

    if (signal.aborted) session.log('info', 'system', 'Execution was cancelled');
    const finished = await completeExecution(
      deps,
      { executionId, botId: claimed.botId, attempt: claimed.attempt, session },
      outcome,
    );
    log.info({ status: finished ? outcome.status : 'superseded' }, 'execution finished');
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
