import type { RunOutcome } from '@botfleet/core';
import { runningCapRule } from './caps';
import {
  AT_CAPACITY_RECHECK_MS,
  botTry,
  decideAttemptEnd,
  decideClaimedRun,
  infrastructureFailureOutcome,
  infraRetryDelayMs,
  PROFILE_TURN_RECHECK_MS,
  unclaimedStep,
  type AttemptPolicy,
  type AttemptResult,
} from './run-decisions';

/*
 * Every row of what happens next to a run, decided without a queue, a browser or a database:
 * the worker only carries these out.
 */

const failed: RunOutcome = { status: 'failed', error: 'Step 2 (click "#buy") failed: timeout', stepIndex: 1 };
const timedOut: RunOutcome = { status: 'timed_out', error: 'Execution timed out after 30 s', stepIndex: 3 };
const completed: RunOutcome = { status: 'completed', data: { price: '9.99' } };
const cancelled: RunOutcome = { status: 'cancelled' };
const crashed = infrastructureFailureOutcome('Chromium exited', { infraRetries: 0 }, 3);

/** One retry of the bot's own, two seconds apart; three infrastructure retries, all left. */
const policy: AttemptPolicy = {
  infraRetriesLeft: 3,
  maxInfraRetries: 3,
  bot: { retryAttempts: 1, retryDelaySeconds: 2 },
};
const firstTry = { attempt: 1, infraRetries: 0 };

const byBot = (outcome: RunOutcome, stoppedBy: AttemptResult['stoppedBy'] = null): AttemptResult => ({
  outcome,
  cause: 'bot',
  stoppedBy,
});
const byInfrastructure = (stoppedBy: AttemptResult['stoppedBy'] = null): AttemptResult => ({
  outcome: crashed,
  cause: 'infrastructure',
  stoppedBy,
});

describe('a claim that took nothing', () => {
  it('ends the job of a run that is gone, and re-checks a capped organization and a busy profile later', () => {
    expect(unclaimedStep('gone')).toEqual({ kind: 'done' });
    expect(unclaimedStep('at-capacity')).toEqual({ kind: 'delay', ms: AT_CAPACITY_RECHECK_MS });
    expect(unclaimedStep('profile-busy')).toEqual({ kind: 'delay', ms: PROFILE_TURN_RECHECK_MS });
    expect([AT_CAPACITY_RECHECK_MS, PROFILE_TURN_RECHECK_MS]).toEqual([1_000, 5_000]);
  });
});

describe('a claimed run', () => {
  it('goes ahead while its infrastructure retries are within EXECUTION_MAX_INFRA_RETRIES', () => {
    expect(decideClaimedRun({ infraRetries: 0 }, 2)).toEqual({ kind: 'run', infraRetriesLeft: 2 });
    expect(decideClaimedRun({ infraRetries: 2 }, 2)).toEqual({ kind: 'run', infraRetriesLeft: 0 });
  });

  it('fails unstarted once they are past it', () => {
    expect(decideClaimedRun({ infraRetries: 3 }, 2)).toEqual({
      kind: 'fail',
      outcome: {
        status: 'failed',
        error:
          "infrastructure_failure: the run's worker stopped or its browser failed 3 times (EXECUTION_MAX_INFRA_RETRIES=2)",
        stepIndex: null,
      },
    });
  });
});

describe('the end of an attempt', () => {
  it('retries a bot failure while the bot has tries left, after its delay', () => {
    expect(decideAttemptEnd(firstTry, byBot(failed), policy)).toEqual({
      kind: 'retryBot',
      delayMs: 2_000,
      nextTry: 2,
      tries: 2,
      error: 'Step 2 (click "#buy") failed: timeout',
    });
    expect(decideAttemptEnd(firstTry, byBot(timedOut), policy)).toMatchObject({ kind: 'retryBot', nextTry: 2 });
    const now = { ...policy, bot: { retryAttempts: 1, retryDelaySeconds: 0 } };
    expect(decideAttemptEnd(firstTry, byBot(failed), now)).toMatchObject({ kind: 'retryBot', delayMs: 0 });
  });

  it('finishes a bot failure with no tries left, and a bot without a retry policy at once', () => {
    expect(decideAttemptEnd({ attempt: 2, infraRetries: 0 }, byBot(failed), policy)).toEqual({ kind: 'finish' });
    const noRetries = { ...policy, bot: { retryAttempts: 0, retryDelaySeconds: 0 } };
    expect(decideAttemptEnd(firstTry, byBot(failed), noRetries)).toEqual({ kind: 'finish' });
  });

  it('counts the bot’s tries, not the attempts: infrastructure retries do not use up its policy', () => {
    const afterTwoCrashes = { attempt: 3, infraRetries: 2 };
    expect(botTry(afterTwoCrashes)).toBe(1);
    expect(decideAttemptEnd(afterTwoCrashes, byBot(failed), policy)).toMatchObject({ kind: 'retryBot', nextTry: 2 });
  });

  it('finishes a completed run', () => {
    expect(decideAttemptEnd(firstTry, byBot(completed), policy)).toEqual({ kind: 'finish' });
  });

  it('retries an infrastructure failure under the bound as a new attempt, backing off to at most a minute', () => {
    expect(decideAttemptEnd({ attempt: 2, infraRetries: 1 }, byInfrastructure(), policy)).toEqual({
      kind: 'retryInfrastructure',
      delayMs: 4_000,
      retry: 2,
      maxRetries: 3,
    });
    expect([0, 1, 2, 5, 6, 10].map(infraRetryDelayMs)).toEqual([2_000, 4_000, 8_000, 60_000, 60_000, 60_000]);
  });

  it('finishes an infrastructure failure past the bound, with what failed and the bound in its error', () => {
    const spent = { ...policy, infraRetriesLeft: 0 };
    expect(decideAttemptEnd({ attempt: 4, infraRetries: 3 }, byInfrastructure(), spent)).toEqual({ kind: 'finish' });
    expect(infrastructureFailureOutcome('Chromium exited', { infraRetries: 3 }, 3)).toEqual({
      status: 'failed',
      error: 'infrastructure_failure: Chromium exited (after 3 infrastructure retries; EXECUTION_MAX_INFRA_RETRIES=3)',
      stepIndex: null,
    });
  });

  it('hands a run stopped by the drain deadline back to the queue, uncounted', () => {
    expect(decideAttemptEnd(firstTry, byBot(cancelled, 'shutdown'), policy)).toEqual({ kind: 'handBack' });
    expect(decideAttemptEnd(firstTry, byInfrastructure('shutdown'), policy)).toEqual({ kind: 'handBack' });
    const spent = { ...policy, infraRetriesLeft: 0 };
    expect(decideAttemptEnd(firstTry, byInfrastructure('shutdown'), spent)).toEqual({ kind: 'handBack' });
  });

  it('keeps a run that ended by itself during the shutdown: its outcome stands, with no retry', () => {
    expect(decideAttemptEnd(firstTry, byBot(completed, 'shutdown'), policy)).toEqual({ kind: 'finish' });
    expect(decideAttemptEnd(firstTry, byBot(failed, 'shutdown'), policy)).toEqual({ kind: 'finish' });
  });

  it('lets a cancel win: nothing is retried or handed back', () => {
    expect(decideAttemptEnd(firstTry, byBot(failed, 'cancel'), policy)).toEqual({ kind: 'finish' });
    expect(decideAttemptEnd(firstTry, byBot(cancelled, 'cancel'), policy)).toEqual({ kind: 'finish' });
    expect(decideAttemptEnd(firstTry, byInfrastructure('cancel'), policy)).toEqual({ kind: 'finish' });
  });

  it('never retries a failure of the deployment (a profile it cannot open)', () => {
    const unavailable: AttemptResult = { outcome: failed, cause: 'deployment', stoppedBy: null };
    expect(decideAttemptEnd(firstTry, unavailable, policy)).toEqual({ kind: 'finish' });
    expect(decideAttemptEnd(firstTry, { ...unavailable, stoppedBy: 'shutdown' }, policy)).toEqual({ kind: 'finish' });
  });
});

describe('the running cap', () => {
  it('is the organization’s own, else MAX_RUNNING_EXECUTIONS_PER_ORG, else none', () => {
    const withDefault = runningCapRule({ maxRunningExecutionsPerOrg: 5 });
    expect([withDefault(2), withDefault(null)]).toEqual([2, 5]);
    const withoutDefault = runningCapRule(undefined);
    expect([withoutDefault(2), withoutDefault(null)]).toEqual([2, null]);
  });
});
