import { storedStatusOf, type ArtifactUrlSettings, type Logger, type RunOutcome, type SecretBox } from '@botfleet/core';
import type { ArtifactStore, ClaimedExecution, PrismaClient } from '@botfleet/db';
import {
  claimExecution,
  completeExecution,
  INFRASTRUCTURE_FAILURE,
  maxInfraRetriesOf,
  notifyBestEffort,
  PROFILE_TURN_RECHECK_MS,
  publishRunChanges,
  requeueExecution,
  type EngineDeps,
  type ExecutionClaim,
} from '@botfleet/engine';
import { advanceStartClock, type ExecutionRunPayload, type Queues } from '@botfleet/queue';
import type { FleetMetrics } from '@botfleet/ops';
import {
  executionTimeoutMs,
  InfrastructureError,
  runExecution,
  type AdBlocker,
  type BrowserHost,
  type EgressGuard,
  type OutputLimits,
  type ProxyPool,
} from '@botfleet/runner';
import { DelayedError, WaitingError, type Job } from 'bullmq';
import type { Cancellations } from './cancellations';
import { createCredentialSource, openBrowserSession, type RunBrowserSession } from './browser-session';
import { createDbRunSession, SupersededAttemptError, type DbRunSession } from './db-run-session';
import { loadProgram } from './load-program';

const FLUSH_EVERY_MS = 1_000;
/** How long a run whose organization is at MAX_RUNNING_EXECUTIONS_PER_ORG waits before it asks again. */
const AT_CAPACITY_RECHECK_MS = 1_000;

export interface ExecutionRunProcessorDeps {
  db: PrismaClient;
  queues: Queues;
  logger: Logger;
  browserHost: BrowserHost;
  proxyPool: ProxyPool;
  adBlocker?: AdBlocker;
  egressGuard?: EgressGuard;
  cancellations: Cancellations;
  defaultTimeoutSeconds: number;
  /**
   * MAX_RUNNING_EXECUTIONS_PER_ORG: an organization's runs going at once across the fleet, for
   * organizations the operator gave no cap of their own (unset: no cap).
   */
  maxRunningPerOrganization?: number;
  /** Signs the screenshot URL of an `execution.failed` event; without it the event's URL is null. */
  artifactUrls?: ArtifactUrlSettings;
  /**
   * Opens credentials and profile states (SECRETS_KEY); without it a run that uses either fails
   * with a message saying so.
   */
  secretBox?: SecretBox;
  /** Where artifacts' content goes (ARTIFACT_STORE); PostgreSQL when omitted. */
  artifactStore?: ArtifactStore;
  /**
   * EXECUTION_MAX_INFRA_RETRIES: how many times a run whose worker died or whose browser failed is
   * tried again before it fails with infrastructure_failure (default 3).
   */
  maxInfraRetries?: number;
  /** MAX_STEP_OUTPUT_BYTES and MAX_EXECUTION_OUTPUT_BYTES; the documented defaults when omitted. */
  outputLimits?: OutputLimits;
  /** Counts runs in flight and finished runs; optional so tests can leave it out. */
  metrics?: Pick<FleetMetrics, 'executionsRunning' | 'executionsTotal' | 'executionDuration'>;
  /**
   * Aborted when the worker's drain deadline passes during shutdown: runs still going stop and
   * their jobs go back to the queue (a deploy must never fail a run).
   */
  shutdownSignal?: AbortSignal;
}

/** An infrastructure retry waits 2 s, 4 s, 8 s... (at most a minute), as BullMQ's backoff did. */
const infraRetryDelayMs = (retry: number) => Math.min(60_000, 2_000 * 2 ** retry);

/**
 * Runs one execution end to end. Bot failures (selector, timeout, page errors, an output past its
 * bound) end it `failed` at once; infrastructure failures (a dead worker, a failed browser) are
 * tried again as new attempts up to EXECUTION_MAX_INFRA_RETRIES, counted on the row, then fail
 * with infrastructure_failure. A bot failure is retried within the same execution when the bot's
 * retry policy allows another try (see retryBotFailure). Registered with
 * `consume(executionRun, ...)`, which parses the payload first.
 */
export function createExecutionRunProcessor(deps: ExecutionRunProcessorDeps) {
  const { db, logger } = deps;
  // The run's state changes go through the engine, which applies the running cap and the
  // infrastructure-retry limit.
  const engine: EngineDeps & { artifactUrls?: ArtifactUrlSettings; secretBox?: SecretBox } = {
    db,
    queues: deps.queues,
    logger,
    settings: { maxRunningExecutionsPerOrg: deps.maxRunningPerOrganization, maxInfraRetries: deps.maxInfraRetries },
    artifactUrls: deps.artifactUrls,
    // Seals the failure screenshot of a run that held secret values (docs/security.md).
    secretBox: deps.secretBox,
  };
  const maxInfraRetries = maxInfraRetriesOf(engine.settings);

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
    const claim = await claimExecution(engine, executionId);
    if (claim.kind === 'gone') {
      logger.debug({ executionId }, 'execution already ended, cancelled or deleted; nothing to run');
      return;
    }
    if (claim.kind === 'at-capacity') {
      // The row stays pending; the job keeps its fair-share priority and comes back shortly,
      // while other organizations' runs take the slot.
      logger.debug({ executionId }, 'organization at its running cap; the run waits');
      await job.moveToDelayed(Date.now() + AT_CAPACITY_RECHECK_MS, job.token);
      throw new DelayedError();
    }
    if (claim.kind === 'profile-busy') {
      // The row stays pending; the run of the profile before it wakes this job when it ends.
      logger.debug({ executionId }, 'another run of the profile goes first; the run waits');
      await job.moveToDelayed(Date.now() + PROFILE_TURN_RECHECK_MS, job.token);
      throw new DelayedError();
    }
    // The earlier attempts' objects in the bucket; their rows are gone. A failure here leaves them
    // to the bucket's lifecycle rule (docs/operations.md), never fails the run.
    const discarded = claim.run.discardedStorageKeys;
    if (discarded.length > 0 && deps.artifactStore)
      await deps.artifactStore
        .remove(discarded)
        .catch((err: unknown) =>
          logger.warn({ executionId, err: (err as Error).message }, 'could not remove an earlier attempt’s artifacts'),
        );
    // Fair share: other organizations' new runs now queue behind this point, not behind the backlog.
    await advanceStartClock(deps.queues, job.opts.priority).catch((err: unknown) =>
      logger.warn({ executionId, err: (err as Error).message }, 'could not advance the fair-share clock'),
    );
    deps.metrics?.executionsRunning.inc();
    try {
      await runAttempt(job, executionId, claim, cancelSignal);
    } catch (err) {
      if (!(err instanceof SupersededAttemptError)) throw err;
      // A newer attempt took the run over (this worker lost its job's lock: a long pause, or
      // cut off from Redis): this one stopped its program and closed its browser context, and
      // writes nothing more. The row and the job are the newer attempt's (docs/runs.md).
      logger.warn(
        { executionId, attempt: err.attempt },
        `attempt ${err.attempt} of ${executionId} was superseded; stopping`,
      );
    } finally {
      deps.metrics?.executionsRunning.dec();
    }
  }

  async function runAttempt(
    job: Job<unknown>,
    executionId: string,
    claim: Extract<ExecutionClaim, { run: ClaimedExecution }>,
    cancelSignal: AbortSignal,
  ): Promise<void> {
    const claimed = claim.run;
    const startedAt = performance.now();
    const { shutdownSignal } = deps;
    const log = logger.child({ executionId, attempt: claimed.attempt });
    const loaded = await loadProgram(db, claimed.botId, claimed.botVersion);
    if (!loaded) return;

    const timeoutMs = executionTimeoutMs(loaded.manifest.capabilities, deps.defaultTimeoutSeconds);
    const session = createDbRunSession({
      db,
      executionId,
      params: claimed.params,
      deadline: Date.now() + timeoutMs,
      attempt: claimed.attempt,
      credentials: createCredentialSource(db, deps.secretBox, claimed.organizationId),
      artifactStore: deps.artifactStore,
      secretBox: deps.secretBox,
      // A run on a profile is logged in: whatever it saves may show what the login opens.
      sealArtifacts: claimed.profileId !== null,
      logger: log,
      // The run's output is new, its status is not: readers fetch the steps and logs past their cursor.
      afterWrite: (changed) =>
        notifyBestEffort(log, { executionId }, [
          publishRunChanges(engine, [
            {
              executionId,
              organizationId: claimed.organizationId,
              botId: claimed.botId,
              status: 'running',
              attempt: claimed.attempt,
              changed,
            },
          ]),
        ]),
    });
    // A cancel, the drain deadline, or a write that found the run no longer this attempt's (a
    // newer attempt took it over, or a cancel whose message this worker missed) stops the run.
    const signal = AbortSignal.any([cancelSignal, session.stopped, ...(shutdownSignal ? [shutdownSignal] : [])]);
    if (claim.kind === 'infra-retries-exhausted') {
      const { outcome } = claim;
      if (outcome.status === 'failed')
        session.log('error', 'system', `Attempt ${claimed.attempt} not started: ${outcome.error}`);
      await finish(claimed, session, outcome, startedAt, log);
      return;
    }
    const retryNote =
      claimed.infraRetries > 0 ? `, infrastructure retry ${claimed.infraRetries} of ${maxInfraRetries}` : '';
    session.log(
      'info',
      'system',
      `Attempt ${claimed.attempt} started: ${loaded.description}, timeout ${timeoutMs / 1000} s${retryNote}`,
    );

    // A profile whose state cannot be opened is the deployment's problem (SECRETS_KEY), not a
    // passing one: the run fails at once with what to fix, and is not retried.
    let browserSession: RunBrowserSession | null = null;
    if (claimed.profileId) {
      const persist = loaded.manifest.session?.persist ?? 'onSuccess';
      try {
        browserSession = await openBrowserSession(db, deps.secretBox, claimed.profileId, persist);
      } catch (err) {
        const error = `profile_unavailable: ${(err as Error).message}`;
        session.log('error', 'system', error);
        await finish(claimed, session, { status: 'failed', error, stepIndex: null }, startedAt, log);
        return;
      }
      const state = browserSession.loaded ? 'saved state loaded' : 'no saved state yet';
      session.log('info', 'system', `Browser session: profile ${claimed.profileId}, ${state} (persist: ${persist})`);
    }

    let flushing: Promise<void> = Promise.resolve();
    const flusher = setInterval(() => {
      flushing = flushing
        .then(() => session.flush())
        .catch((err: unknown) => {
          // Superseded: the session's `stopped` signal has already aborted the run.
          if (!(err instanceof SupersededAttemptError))
            log.warn({ err: (err as Error).message }, 'progress flush failed');
        });
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
        outputLimits: deps.outputLimits,
        browserState: browserSession?.browserState,
      });
    } catch (err) {
      // Not the bot's doing (Chromium crashed or could not start, or a bug): an infrastructure
      // failure, retried as a new attempt while EXECUTION_MAX_INFRA_RETRIES allows.
      const message = err instanceof Error ? err.message : String(err);
      const infrastructure = err instanceof InfrastructureError;
      session.log('error', 'system', `${infrastructure ? 'Infrastructure failure' : 'Unexpected error'}: ${message}`);
      botOutcome = false;
      outcome = {
        status: 'failed',
        error: `${INFRASTRUCTURE_FAILURE}: ${message} (after ${claimed.infraRetries} infrastructure retries; EXECUTION_MAX_INFRA_RETRIES=${maxInfraRetries})`,
        stepIndex: null,
      };
    } finally {
      clearInterval(flusher);
      await flushing;
    }
    session.throwIfSuperseded();

    // Stopped by the drain deadline, not by a user: the run goes back to the queue as `pending`
    // (an orderly hand-over, not counted as an infrastructure retry; the next claim starts
    // attempt N+1), and the job never counts as failed.
    if (
      shutdownSignal?.aborted &&
      !cancelSignal.aborted &&
      !session.stopped.aborted &&
      (outcome.status === 'cancelled' || !botOutcome)
    ) {
      session.log('warn', 'system', 'Worker shutting down: the execution goes back to the queue to run again');
      await session.flush().catch((err: unknown) => {
        if (err instanceof SupersededAttemptError) throw err;
        log.warn({ err: (err as Error).message }, 'progress flush failed');
      });
      // If this fails or the process dies first, the row stays `running` and the lock expiry
      // brings the job back as a counted infrastructure retry: bounded either way.
      await requeueExecution(engine, { executionId, attempt: claimed.attempt }).catch((err: unknown) =>
        log.warn({ err: (err as Error).message }, 'could not put the execution back to pending'),
      );
      await job.moveToWait(job.token);
      log.info('execution handed back to the queue at the shutdown deadline');
      throw new WaitingError();
    }
    if (!botOutcome && claim.infraRetriesLeft > 0 && !signal.aborted) {
      await retryInfrastructureFailure(job, claimed, session, log);
      return;
    }
    switch (outcome.status) {
      case 'cancelled':
        session.log('info', 'system', 'Execution was cancelled');
        break;
      case 'failed':
      case 'timed_out':
        // A cancel that lands as the run fails wins: the row is final, nothing is retried.
        if (botOutcome && !signal.aborted && botTry(claimed) <= loaded.bot.retryAttempts) {
          await retryBotFailure(job, claimed, loaded.bot, outcome.error, session, log);
          return;
        }
        break;
      case 'completed':
        break;
    }
    const profileState = browserSession?.stateToSave(outcome, (message) => session.log('warn', 'system', message));
    await finish(claimed, session, outcome, startedAt, log, profileState ?? null);
  }

  /** Ends the attempt with its outcome (if it still owns the run) and counts it. */
  async function finish(
    claimed: ClaimedExecution,
    session: DbRunSession,
    outcome: RunOutcome,
    startedAt: number,
    log: Logger,
    profileState: Parameters<typeof completeExecution>[4] = null,
  ): Promise<void> {
    const progress = session.drain();
    const finished = await completeExecution(
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
    if (!finished) await session.discardIfSuperseded(progress);
    if (finished) {
      const status = storedStatusOf(outcome);
      deps.metrics?.executionsTotal.inc({ status, trigger: claimed.trigger });
      deps.metrics?.executionDuration.observe({ status }, (performance.now() - startedAt) / 1000);
    }
  }

  /**
   * Tries the run again as a new attempt after an infrastructure failure: the row stays
   * `running`, so the next claim counts it as an infrastructure retry (claimExecution), exactly
   * as if this worker had died; the job waits out the backoff in BullMQ without using up one of
   * its own attempts. A crash in between is the same case: the lock expires, the job comes back.
   */
  async function retryInfrastructureFailure(
    job: Job<unknown>,
    claimed: ClaimedExecution,
    session: DbRunSession,
    log: Logger,
  ): Promise<void> {
    const delayMs = infraRetryDelayMs(claimed.infraRetries);
    session.log(
      'warn',
      'system',
      `Retrying in ${delayMs / 1000} s as a new attempt (infrastructure retry ${claimed.infraRetries + 1} of ${maxInfraRetries})`,
    );
    await session.flush();
    log.warn({ delayMs }, 'infrastructure failure; the execution will be tried again');
    await job.moveToDelayed(Date.now() + delayMs, job.token);
    throw new DelayedError();
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
    // The bot's tries, not the attempts: infrastructure retries do not use up its retry policy.
    const next = botTry(claimed) + 1;
    const when = delayMs > 0 ? `in ${bot.retryDelaySeconds} s` : 'now';
    session.log('warn', 'system', `Attempt ${claimed.attempt} failed: ${error}`);
    session.log('info', 'system', `Retrying ${when}: try ${next} of ${bot.retryAttempts + 1}`);
    await session.flush();
    if (!(await requeueExecution(engine, { executionId: claimed.id, attempt: claimed.attempt }))) {
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

/** Which try of the bot an attempt is: attempts that were infrastructure retries do not count. */
const botTry = (claimed: ClaimedExecution) => claimed.attempt - claimed.infraRetries;
