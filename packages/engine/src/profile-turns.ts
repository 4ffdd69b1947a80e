import { findNextProfileRun } from '@botfleet/db';
import { executionRun, promoteDelayedJob } from '@botfleet/queue';
import type { EngineDeps } from './engine-deps';

/*
 * Runs sharing a profile take turns (claimExecutionWithinCap answers 'profile-busy' to a run
 * whose turn it is not); the waiting run's job sits in BullMQ's delayed set, holding no worker
 * slot, and asks again after PROFILE_TURN_RECHECK_MS (run-decisions.ts). A run of the profile
 * that ends wakes the next one at once, so turns follow each other without that wait; the
 * recheck is the backstop for turns freed any other way (a cancel, a deleted run, a lost wake).
 */

/** Promotes the delayed job of the run whose turn on `profileId` comes next, if it is waiting. */
export async function wakeNextProfileRun(deps: EngineDeps, profileId: string): Promise<void> {
  const next = await findNextProfileRun(deps.db, profileId);
  if (next) await promoteDelayedJob(deps.queues, executionRun, executionRun.jobIdOf({ executionId: next }));
}
