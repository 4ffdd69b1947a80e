import type { FailedRunOutcome, RunOutcome } from '@botfleet/core';
import type { ClaimedExecution } from '@botfleet/db';
import type { JobNextStep } from '@botfleet/queue';
import { INFRASTRUCTURE_FAILURE } from './caps';

/*
 * What happens next to a run, decided in one place, after trigger.dev's run engine returning a
 * RetryOutcome: pure functions of the attempt, what became of it and the policy, unit tested
 * without a queue, a browser or a database (run-decisions.test.ts). The commands in attempts.ts
 * write what these decide and answer the JobNextStep that the queue adapter applies.
 */

/** How long a run whose organization is at its running cap waits before it asks again. */
export const AT_CAPACITY_RECHECK_MS = 1_000;

/**
 * How long a run waiting for its profile's turn waits before it asks again: the backstop for
 * turns freed without a wake (profile-turns.ts).
 */
export const PROFILE_TURN_RECHECK_MS = 5_000;

/** An infrastructure retry waits 2 s, 4 s, 8 s... (at most a minute), as BullMQ's backoff did. */
export function infraRetryDelayMs(retry: number): number {
  return Math.min(60_000, 2_000 * 2 ** retry);
}

/** Which try of the bot an attempt is: attempts that were infrastructure retries do not count. */
export function botTry(run: Pick<ClaimedExecution, 'attempt' | 'infraRetries'>): number {
  return run.attempt - run.infraRetries;
}

/** Why a claim took nothing; each reason's step for the job is in UNCLAIMED_STEPS. */
export type UnclaimedReason = 'gone' | 'at-capacity' | 'profile-busy';

const UNCLAIMED_STEPS: Record<UnclaimedReason, JobNextStep> = {
  // Already ended, cancelled or deleted: nothing to run.
  gone: { kind: 'done' },
  // The row stays pending; the job keeps its fair-share priority and comes back shortly, while
  // other organizations' runs take the slot.
  'at-capacity': { kind: 'delay', ms: AT_CAPACITY_RECHECK_MS },
  // The row stays pending; the run of the profile before it wakes this job when it ends.
  'profile-busy': { kind: 'delay', ms: PROFILE_TURN_RECHECK_MS },
};

/** The job's step after a claim that took nothing. */
export function unclaimedStep(reason: UnclaimedReason): JobNextStep {
  return UNCLAIMED_STEPS[reason];
}

/** What a claimed run may do: go ahead with infrastructure retries in hand, or end unstarted. */
export type ClaimedRunDecision =
  { kind: 'run'; infraRetriesLeft: number } | { kind: 'fail'; outcome: FailedRunOutcome };

/**
 * A run whose previous attempts never finished more often than EXECUTION_MAX_INFRA_RETRIES allows
 * is not run again but failed (a run that keeps killing its worker must not do so for ever).
 */
export function decideClaimedRun(
  run: Pick<ClaimedExecution, 'infraRetries'>,
  maxInfraRetries: number,
): ClaimedRunDecision {
  const left = maxInfraRetries - run.infraRetries;
  if (left >= 0) return { kind: 'run', infraRetriesLeft: left };
  const error = `${INFRASTRUCTURE_FAILURE}: the run's worker stopped or its browser failed ${run.infraRetries} times (EXECUTION_MAX_INFRA_RETRIES=${maxInfraRetries})`;
  return { kind: 'fail', outcome: { status: 'failed', error, stepIndex: null } };
}

/**
 * The outcome of an attempt that failed through no fault of the bot (Chromium crashed or could
 * not start, or a bug), as it is stored if it is not retried.
 */
export function infrastructureFailureOutcome(
  message: string,
  run: Pick<ClaimedExecution, 'infraRetries'>,
  maxInfraRetries: number,
): FailedRunOutcome {
  const error = `${INFRASTRUCTURE_FAILURE}: ${message} (after ${run.infraRetries} infrastructure retries; EXECUTION_MAX_INFRA_RETRIES=${maxInfraRetries})`;
  return { status: 'failed', error, stepIndex: null };
}

/** What became of an attempt's program. */
export interface AttemptResult {
  outcome: RunOutcome;
  /**
   * Who caused it: the bot (a step, the page, the timeout; only then may the bot's retry policy
   * apply), the infrastructure (the browser, a bug), or the deployment (a profile whose state
   * cannot be opened, for want of the right SECRETS_KEY: not a passing failure, never retried).
   */
  cause: 'bot' | 'infrastructure' | 'deployment';
  /**
   * What stopped the program before it ended, if anything: a cancel (a cancel message, or a
   * write that found the run no longer this attempt's), else the worker's drain deadline.
   */
  stoppedBy: 'cancel' | 'shutdown' | null;
}

/** The policy an attempt's end is decided under. */
export interface AttemptPolicy {
  /** Infrastructure retries the run may still use (from its claim). */
  infraRetriesLeft: number;
  /** EXECUTION_MAX_INFRA_RETRIES, for the run's log. */
  maxInfraRetries: number;
  /** The bot's retry policy: tries after the first, and the wait before each. */
  bot: { retryAttempts: number; retryDelaySeconds: number };
}

/** What an attempt's end leads to. */
export type AttemptDecision =
  /**
   * Stopped by the drain deadline, not by a user: the run goes back to the queue as `pending` (an
   * orderly hand-over, not counted as an infrastructure retry; the next claim starts attempt
   * N+1), and the job never counts as failed: a deploy must never fail a run (docs/operations.md,
   * "Graceful shutdown").
   */
  | { kind: 'handBack' }
  /**
   * Tried again as a new attempt after `delayMs`: the row stays `running`, so the next claim
   * counts it as infrastructure retry `retry` (of `maxRetries`), exactly as if the worker had died
   * (EXECUTION_MAX_INFRA_RETRIES, docs/configuration.md).
   */
  | { kind: 'retryInfrastructure'; delayMs: number; retry: number; maxRetries: number }
  /**
   * The bot's retry policy allows another try in the same execution: the row goes back to
   * `pending` and the job waits `delayMs` before the next claim runs try `nextTry` of `tries`.
   * `error` is the failure being retried.
   */
  | { kind: 'retryBot'; delayMs: number; nextTry: number; tries: number; error: string }
  /** The run ends with the attempt's outcome. */
  | { kind: 'finish' };

/**
 * Decides what follows an attempt. A cancel that lands as the run fails wins: the row is final,
 * nothing is retried. Only a failure the bot caused uses its retry policy, counted in the bot's
 * tries (infrastructure retries do not use it up).
 */
export function decideAttemptEnd(
  run: Pick<ClaimedExecution, 'attempt' | 'infraRetries'>,
  result: AttemptResult,
  policy: AttemptPolicy,
): AttemptDecision {
  const { outcome, cause, stoppedBy } = result;
  if (cause === 'deployment') return { kind: 'finish' };
  if (stoppedBy === 'shutdown' && (outcome.status === 'cancelled' || cause === 'infrastructure'))
    return { kind: 'handBack' };
  if (stoppedBy !== null) return { kind: 'finish' };
  if (cause === 'infrastructure') {
    if (policy.infraRetriesLeft <= 0) return { kind: 'finish' };
    return {
      kind: 'retryInfrastructure',
      delayMs: infraRetryDelayMs(run.infraRetries),
      retry: run.infraRetries + 1,
      maxRetries: policy.maxInfraRetries,
    };
  }
  const failed = outcome.status === 'failed' || outcome.status === 'timed_out';
  if (!failed || botTry(run) > policy.bot.retryAttempts) return { kind: 'finish' };
  return {
    kind: 'retryBot',
    delayMs: policy.bot.retryDelaySeconds * 1000,
    nextTry: botTry(run) + 1,
    tries: policy.bot.retryAttempts + 1,
    error: outcome.error,
  };
}
