import { sealArtifactBytes } from '@botfleet/artifacts';
import {
  createArtifactUrlSigner,
  storedStatusOf,
  type ArtifactUrlSettings,
  type FailedRunOutcome,
  type RunOutcome,
  type SecretBox,
} from '@botfleet/core';
import { newArtifactId, type ClaimedExecution, type ExecutionAttemptEnd, type ProgressBatch } from '@botfleet/db';
import {
  claimExecutionWithinCap,
  endExecutionAttempt,
  failUnfinishedExecution,
  requeueExecution as requeueExecutionRow,
} from '@botfleet/db/state';
import { executionRun, webhookDeliver, type JobNextStep } from '@botfleet/queue';
import { notifyBestEffort, publishRunChanges, statusNotice } from './after-commit';
import { INFRASTRUCTURE_FAILURE, maxInfraRetriesOf, runningCapRule } from './caps';
import { wakeNextProfileRun } from './profile-turns';
import type { EngineDeps } from './engine-deps';
import { decideClaimedRun, unclaimedStep, type UnclaimedReason } from './run-decisions';

/*
 * The worker's side of a run: claim, then complete or requeue, each answering the next step for
 * the run's job (run-decisions.ts decides it; the worker returns it and consume applies it).
 * Every write names the attempt it claimed, so a worker that lost its job (stalled, killed,
 * partitioned) can never overwrite what a newer attempt or a cancel wrote.
 */

/** What a claim came to. */
export type ExecutionClaim =
  /**
   * Nothing claimed, and `next` says what the job does: `gone` (already ended, cancelled or
   * deleted) ends it; `at-capacity` (the organization is at its running cap) and `profile-busy`
   * (another run of the profile goes first; the run before it wakes this job when it ends) leave
   * the row pending and the job asks again after a re-check delay.
   */
  | { kind: UnclaimedReason; next: JobNextStep }
  /** Claimed, and the run may go ahead with `infraRetriesLeft` infrastructure retries in hand. */
  | { kind: 'claimed'; run: ClaimedExecution; infraRetriesLeft: number }
  /**
   * Claimed, but the previous attempts never finished more often than EXECUTION_MAX_INFRA_RETRIES
   * allows: the caller ends it with `outcome` without running it again (a run that keeps killing
   * its worker must not do so for ever).
   */
  | { kind: 'infra-retries-exhausted'; run: ClaimedExecution; outcome: FailedRunOutcome };

/**
 * Claims an execution for this attempt under the organization's running cap (its own, else
 * MAX_RUNNING_EXECUTIONS_PER_ORG; no lock when neither is set) and the infrastructure-retry limit.
 */
export async function claimExecution(deps: EngineDeps, executionId: string): Promise<ExecutionClaim> {
  const claimed = await claimExecutionWithinCap(deps.db, executionId, runningCapRule(deps.settings));
  if (!claimed) return { kind: 'gone', next: unclaimedStep('gone') };
  if (claimed === 'at-capacity' || claimed === 'profile-busy') return { kind: claimed, next: unclaimedStep(claimed) };
  await notifyBestEffort(deps.logger, { executionId }, [
    publishRunChanges(deps, [statusNotice({ ...claimed, status: 'running' })]),
  ]);
  const decision = decideClaimedRun(claimed, maxInfraRetriesOf(deps.settings));
  return decision.kind === 'run'
    ? { kind: 'claimed', run: claimed, infraRetriesLeft: decision.infraRetriesLeft }
    : { kind: 'infra-retries-exhausted', run: claimed, outcome: decision.outcome };
}

/** The attempt a completion or a requeue speaks for. */
export interface AttemptRef {
  executionId: string;
  /** The run's organization and bot, named in the live streams' notice of its end. */
  organizationId: string;
  botId: string;
  attempt: number;
  /** The run's profile: its next run is woken once this one has ended. */
  profileId?: string | null;
}

/**
 * A run with nothing extracted (no extract steps, a script returning nothing) produced no data:
 * its extract endpoint answers 404 and no webhook is sent, rather than publishing `{}`.
 */
function producedData(data: unknown): boolean {
  if (data === null || data === undefined) return false;
  return !(typeof data === 'object' && !Array.isArray(data) && Object.keys(data).length === 0);
}

/** What a completion came to: whether this attempt's end was written, and the job's next step. */
export interface AttemptEnd {
  finished: boolean;
  next: JobNextStep;
}

/**
 * Ends the attempt in one transaction: the final state, the rest of its output (`progress`), the
 * failure screenshot and the delivery rows of the webhook's events. Nothing is written when this
 * attempt no longer owns the execution (cancelled or re-claimed); `finished` says whether it did,
 * and either way the job is done. The delivery jobs are enqueued after commit; a lost one is
 * found by the delivery sweeper.
 *
 * With `artifactUrls`, an `execution.failed` event carries a signed URL of the screenshot, valid
 * for the configured lifetime from the failure (the body is fixed, so retries send the same URL).
 * The screenshot of a run that held secret values, or of a run on a profile, is sealed with
 * `secretBox` (SECRETS_KEY) like the run's other artifacts, and without one it is not kept
 * (docs/security.md).
 */
export async function completeExecution(
  deps: EngineDeps & { artifactUrls?: ArtifactUrlSettings; secretBox?: SecretBox },
  attempt: AttemptRef,
  outcome: RunOutcome,
  progress: ProgressBatch,
  profileState?: ExecutionAttemptEnd['profileState'],
): Promise<AttemptEnd> {
  let screenshotUrl: string | null = null;
  let stored: RunOutcome = outcome;
  switch (outcome.status) {
    case 'completed':
      stored = { status: 'completed', data: producedData(outcome.data) ? outcome.data : null };
      break;
    case 'failed':
    case 'timed_out':
      {
        const screenshot = await failureScreenshotRecord(deps, attempt, outcome);
        if (!screenshot) break;
        const id = newArtifactId();
        // Small and bounded: kept in the row whatever the artifact store, so the event's URL
        // never waits on a bucket.
        progress.artifacts.push({ id, kind: 'failure-screenshot', contentType: 'image/png', ...screenshot });
        const urls = deps.artifactUrls;
        if (urls) screenshotUrl = createArtifactUrlSigner(urls.signingKey, urls.baseUrl, urls.ttlSeconds).sign(id);
      }
      break;
    case 'cancelled':
      break;
  }
  const result = await endExecutionAttempt(deps.db, {
    ...attempt,
    outcome: stored,
    progress,
    screenshotUrl,
    profileState: profileState ?? null,
  });
  const { profileId } = attempt;
  const status = storedStatusOf(outcome);
  // Not finished, a cancelled run may still have kept the output written up to its cancel:
  // readers are told, and find whatever was kept.
  const changed = result.finished ? (['status', 'steps', 'logs'] as const) : (['steps', 'logs'] as const);
  await notifyBestEffort(deps.logger, { executionId: attempt.executionId, status }, [
    publishRunChanges(deps, [
      { ...statusNotice({ ...attempt, id: attempt.executionId, status }), changed: [...changed] },
    ]),
    ...result.deliveryIds.map((deliveryId) => webhookDeliver.enqueue(deps.queues, { deliveryId }, { attempt: 1 })),
    ...(profileId ? [wakeNextProfileRun(deps, profileId)] : []),
  ]);
  return { finished: result.finished, next: { kind: 'done' } };
}

/** Why an attempt puts its run back to `pending`, as the step its job then takes. */
export type RequeueStep = Extract<JobNextStep, { kind: 'retryAttempt' | 'handBack' }>;

/**
 * Puts this attempt's run back to `pending` if this attempt still owns it (a cancel wins), so the
 * next claim starts the next attempt without counting an infrastructure retry, and answers the
 * job's next step. A bot failure tried again (`retryAttempt`) ends its job instead when the
 * attempt no longer owns the run. A shutdown's hand-back (`handBack`) hands the job back whatever
 * became of the write: if it failed or the process dies first, the row stays `running` and the
 * lock expiry brings the job back as a counted infrastructure retry (bounded either way), and a
 * cancel that won is found by the next claim.
 */
export async function requeueExecution(
  deps: EngineDeps,
  attempt: Pick<AttemptRef, 'executionId' | 'attempt'>,
  step: RequeueStep,
): Promise<JobNextStep> {
  if (step.kind === 'handBack') {
    await putBackToPending(deps, attempt).catch((err: unknown) =>
      deps.logger.warn(
        { executionId: attempt.executionId, attempt: attempt.attempt, err: (err as Error).message },
        'could not put the execution back to pending',
      ),
    );
    return step;
  }
  return (await putBackToPending(deps, attempt)) ? step : { kind: 'done' };
}

/** The row back to `pending`, announced to the live streams; false when the attempt no longer owns it. */
async function putBackToPending(deps: EngineDeps, attempt: Pick<AttemptRef, 'executionId' | 'attempt'>) {
  const requeued = await requeueExecutionRow(deps.db, attempt.executionId, attempt.attempt);
  if (!requeued) return false;
  await notifyBestEffort(deps.logger, { executionId: attempt.executionId }, [
    publishRunChanges(deps, [
      statusNotice({ ...requeued, id: attempt.executionId, status: 'pending', attempt: attempt.attempt }),
    ]),
  ]);
  return true;
}

/**
 * BullMQ gave up on a job (its own attempts used up by errors outside the run, or it stalled more
 * often than maxStalledCount, which the worker sets above EXECUTION_MAX_INFRA_RETRIES so the row's
 * count decides first): never leave the row running.
 */
export async function failAbandonedExecution(
  deps: EngineDeps,
  job: { name: string; data: unknown } | undefined,
  reason: string,
): Promise<void> {
  if (!job || job.name !== executionRun.name) return;
  const payload = executionRun.schema.safeParse(job.data);
  if (!payload.success) return;
  const failed = await failUnfinishedExecution(
    deps.db,
    payload.data.executionId,
    `${INFRASTRUCTURE_FAILURE}: execution could not be completed: ${reason}`,
  );
  if (failed)
    await notifyBestEffort(deps.logger, { executionId: failed.id }, [
      publishRunChanges(deps, [statusNotice({ ...failed, status: 'failed' })]),
    ]);
}

/**
 * The failure screenshot's row content, or null when the run has none: sealed when the run held secret values or ran on a
 * profile, as saveArtifact seals the run's other artifacts; null (not kept, with a warning) when
 * it must be sealed and this process has no SECRETS_KEY: never stored in the clear instead.
 */
async function failureScreenshotRecord(
  deps: EngineDeps & { secretBox?: SecretBox },
  attempt: AttemptRef,
  outcome: FailedRunOutcome,
): Promise<{ data: Buffer; storageKey: null; bytes: number; sealed: boolean } | null> {
  if (!outcome.screenshot) return null;
  const png = Buffer.from(outcome.screenshot.buffer, outcome.screenshot.byteOffset, outcome.screenshot.length);
  const mustSeal = outcome.sealScreenshot === true || (attempt.profileId ?? null) !== null;
  if (!mustSeal) return { data: png, storageKey: null, bytes: png.length, sealed: false };
  if (!deps.secretBox) {
    deps.logger.warn(
      { executionId: attempt.executionId },
      'failure screenshot not kept: it must be sealed and there is no SECRETS_KEY',
    );
    return null;
  }
  return { data: await sealArtifactBytes(deps.secretBox, png), storageKey: null, bytes: png.length, sealed: true };
}
