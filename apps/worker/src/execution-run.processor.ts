import { deleteArtifactContent } from '@botfleet/artifacts';
import {
  claimExecution,
  decideAttemptEnd,
  maxInfraRetriesOf,
  type ExecutionClaim,
  type UnclaimedReason,
} from '@botfleet/engine';
import { advanceStartClock, type ConsumedJob, type ExecutionRunPayload, type JobNextStep } from '@botfleet/queue';
import { executionTimeoutMs } from '@botfleet/runner';
import { endAttempt, finishAttempt, type ClaimedAttempt } from './attempt-end';
import { runAttemptProgram } from './attempt-program';
import { createAttemptSession } from './attempt-session';
import { SupersededAttemptError } from './db-run-session';
import { runEngineDepsOf, type ExecutionRunProcessorDeps } from './execution-run-deps';
import { loadProgram } from './load-program';

/** A claimed run: one the engine lets go ahead, or one it ends unstarted. */
type RunClaim = Extract<ExecutionClaim, { kind: 'claimed' | 'infra-retries-exhausted' }>;

const NOT_CLAIMED: Record<UnclaimedReason, string> = {
  gone: 'execution already ended, cancelled or deleted; nothing to run',
  'at-capacity': 'organization at its running cap; the run waits',
  'profile-busy': 'another run of the profile goes first; the run waits',
};

/**
 * Runs one execution end to end, as one flow: the engine claims it, the program runs, the engine
 * decides what follows (decideAttemptEnd: a bot failure ends it `failed` unless the bot's retry
 * policy allows another try; an infrastructure failure is tried again as a new attempt up to
 * EXECUTION_MAX_INFRA_RETRIES; a run stopped by the drain deadline goes back to the queue), and
 * the processor returns the job's next step, which consume() applies (queue/src/job-moves.ts).
 * Registered with `consume(executionRun, ...)`, which parses the payload first.
 */
export function createExecutionRunProcessor(deps: ExecutionRunProcessorDeps) {
  const { logger } = deps;
  const engine = runEngineDepsOf(deps);
  const maxInfraRetries = maxInfraRetriesOf(engine.settings);

  async function processExecution({ executionId }: ExecutionRunPayload, job: ConsumedJob): Promise<JobNextStep> {
    // Listen before claiming: a cancel published between the claim and the run must not be missed.
    const tracking = deps.cancellations.track(executionId);
    try {
      const claim = await claimExecution(engine, executionId);
      if (claim.kind === 'claimed' || claim.kind === 'infra-retries-exhausted')
        return await runClaimed(job, claim, tracking.signal);
      logger.debug({ executionId }, NOT_CLAIMED[claim.kind]);
      return claim.next;
    } finally {
      tracking.done();
    }
  }

  async function runClaimed(job: ConsumedJob, claim: RunClaim, cancelSignal: AbortSignal): Promise<JobNextStep> {
    const executionId = claim.run.id;
    // The earlier attempts' objects in the bucket; their rows are gone. A failure here leaves them
    // to the bucket's lifecycle rule (docs/operations.md), never fails the run.
    await deleteArtifactContent(deps.artifactStore, claim.run.discardedStorageKeys, {
      logger,
      level: 'warn',
      message: 'could not remove an earlier attempt’s artifacts',
      fields: { executionId },
    });
    // Fair share: other organizations' new runs now queue behind this point, not behind the backlog.
    await advanceStartClock(deps.queues, job.priority).catch((err: unknown) =>
      logger.warn({ executionId, err: (err as Error).message }, 'could not advance the fair-share clock'),
    );
    deps.metrics?.executionsRunning.inc();
    try {
      return await runAttempt(claim, cancelSignal);
    } catch (err) {
      if (!(err instanceof SupersededAttemptError)) throw err;
      // A newer attempt took the run over (this worker lost its job's lock: a long pause, or
      // cut off from Redis): this one stopped its program and closed its browser context, and
      // writes nothing more. The row and the job are the newer attempt's (docs/runs.md).
      logger.warn(
        { executionId, attempt: err.attempt },
        `attempt ${err.attempt} of ${executionId} was superseded; stopping`,
      );
      return { kind: 'done' };
    } finally {
      deps.metrics?.executionsRunning.dec();
    }
  }

  async function runAttempt(claim: RunClaim, cancelSignal: AbortSignal): Promise<JobNextStep> {
    const claimed = claim.run;
    const startedAt = performance.now();
    const log = logger.child({ executionId: claimed.id, attempt: claimed.attempt });
    const loaded = await loadProgram(deps.db, claimed.botId, claimed.botVersion);
    if (!loaded) return { kind: 'done' };

    const timeoutMs = executionTimeoutMs(loaded.manifest.capabilities, deps.defaultTimeoutSeconds);
    const session = createAttemptSession(deps, engine, claimed, timeoutMs, log);
    const attempt: ClaimedAttempt = { deps, engine, claimed, session, log, startedAt };
    if (claim.kind === 'infra-retries-exhausted') {
      session.log('error', 'system', `Attempt ${claimed.attempt} not started: ${claim.outcome.error}`);
      return finishAttempt(attempt, claim.outcome);
    }
    const retryNote =
      claimed.infraRetries > 0 ? `, infrastructure retry ${claimed.infraRetries} of ${maxInfraRetries}` : '';
    session.log(
      'info',
      'system',
      `Attempt ${claimed.attempt} started: ${loaded.description}, timeout ${timeoutMs / 1000} s${retryNote}`,
    );

    const program = await runAttemptProgram(deps, {
      claimed,
      loaded,
      session,
      timeoutMs,
      cancelSignal,
      maxInfraRetries,
      log,
    });
    const decision = decideAttemptEnd(claimed, program.result, {
      infraRetriesLeft: claim.infraRetriesLeft,
      maxInfraRetries,
      bot: loaded.bot,
    });
    return endAttempt(attempt, decision, program);
  }

  return processExecution;
}
