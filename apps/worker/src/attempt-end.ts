import { storedStatusOf, type Logger, type RunOutcome } from '@botfleet/core';
import type { ClaimedExecution } from '@botfleet/db';
import { completeExecution, requeueExecution, type AttemptDecision } from '@botfleet/engine';
import type { JobNextStep } from '@botfleet/queue';
import type { ProgramRun } from './attempt-program';
import { SupersededAttemptError, type DbRunSession } from './db-run-session';
import type { ExecutionRunProcessorDeps, RunEngineDeps } from './execution-run-deps';

/** One claimed attempt, as its end is reported. */
export interface ClaimedAttempt {
  deps: ExecutionRunProcessorDeps;
  engine: RunEngineDeps;
  claimed: ClaimedExecution;
  session: DbRunSession;
  log: Logger;
  /** performance.now() when the attempt began, for its duration. */
  startedAt: number;
}

/**
 * Carries out the engine's decision on an attempt: says in the run's log what happens and why,
 * writes what is left of its progress, and has the engine write the run's state. Answers the
 * step for the run's job.
 */
export async function endAttempt(
  attempt: ClaimedAttempt,
  decision: AttemptDecision,
  program: ProgramRun,
): Promise<JobNextStep> {
  const { engine, claimed, session, log } = attempt;
  const ref = { executionId: claimed.id, attempt: claimed.attempt };
  switch (decision.kind) {
    case 'handBack': {
      session.log('warn', 'system', 'Worker shutting down: the execution goes back to the queue to run again');
      await session.flush().catch((err: unknown) => {
        if (err instanceof SupersededAttemptError) throw err;
        log.warn({ err: (err as Error).message }, 'progress flush failed');
      });
      const next = await requeueExecution(engine, ref, { kind: 'handBack' });
      log.info('execution handed back to the queue at the shutdown deadline');
      return next;
    }
    case 'retryInfrastructure': {
      const { delayMs } = decision;
      session.log(
        'warn',
        'system',
        `Retrying in ${delayMs / 1000} s as a new attempt (infrastructure retry ${decision.retry} of ${decision.maxRetries})`,
      );
      await session.flush();
      // The row stays `running`: the next claim counts the retry, as it would after a crash here.
      log.warn({ delayMs }, 'infrastructure failure; the execution will be tried again');
      return { kind: 'retryAttempt', ms: delayMs };
    }
    case 'retryBot': {
      const { delayMs } = decision;
      // This try's logs are written (they say which try wrote them) before the row goes back to
      // `pending`; the next claim clears this try's step outputs.
      session.log('warn', 'system', `Attempt ${claimed.attempt} failed: ${decision.error}`);
      session.log(
        'info',
        'system',
        `Retrying ${delayMs > 0 ? `in ${delayMs / 1000} s` : 'now'}: try ${decision.nextTry} of ${decision.tries}`,
      );
      await session.flush();
      const next = await requeueExecution(engine, ref, { kind: 'retryAttempt', ms: delayMs });
      if (next.kind === 'done') log.info('execution ended meanwhile (cancelled); no retry');
      else log.info({ delayMs, next: decision.nextTry }, 'bot failure; the execution will be tried again');
      return next;
    }
    case 'finish': {
      const { outcome } = program.result;
      if (outcome.status === 'cancelled') session.log('info', 'system', 'Execution was cancelled');
      const profileState = program.browserSession?.stateToSave(outcome, (message) =>
        session.log('warn', 'system', message),
      );
      return finishAttempt(attempt, outcome, profileState ?? null);
    }
  }
}

/** Ends the attempt with its outcome (if it still owns the run) and counts it. */
export async function finishAttempt(
  attempt: ClaimedAttempt,
  outcome: RunOutcome,
  profileState: Parameters<typeof completeExecution>[4] = null,
): Promise<JobNextStep> {
  const { deps, engine, claimed, session, log } = attempt;
  const progress = session.drain();
  const { finished, next } = await completeExecution(
    engine,
    {
      executionId: claimed.id,
      organizationId: claimed.organizationId,
      botId: claimed.botId,
      attempt: claimed.attempt,
      profileId: claimed.profileId,
    },
    outcome,
    progress,
    profileState,
  );
  log.info({ status: finished ? outcome.status : 'superseded' }, 'execution finished');
  if (!finished) {
    await session.discardIfSuperseded(progress);
    return next;
  }
  const status = storedStatusOf(outcome);
  deps.metrics?.executionsTotal.inc({ status, trigger: claimed.trigger });
  deps.metrics?.executionDuration.observe({ status }, (performance.now() - attempt.startedAt) / 1000);
  return next;
}
