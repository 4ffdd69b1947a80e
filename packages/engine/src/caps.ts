import { AppError, CONFIG_DEFAULTS, effectiveLimit } from '@botfleet/core';
import { countPendingExecutions, type Db, type RunningCapRule } from '@botfleet/db';
import type { EngineSettings } from './engine-deps';

/*
 * Every cap on a run's life, in one place: a paused bot takes no run, an organization's pending
 * runs are bounded (API triggers refuse past it, a schedule skips its slot), its running runs are
 * bounded at the claim (runningCapRule; the repository's claimExecutionWithinCap counts under a
 * lock), and a run whose worker or browser keeps failing gets a bounded number of new attempts
 * (maxInfraRetriesOf; run-decisions.ts decides with it).
 */

/** The error code of a run that failed because its infrastructure did, not because of the bot. */
export const INFRASTRUCTURE_FAILURE = 'infrastructure_failure';

/** A paused bot takes no run, whoever asks (a route answers 409; a schedule tick never gets here). */
export function assertBotActive(bot: { status: string }): void {
  if (bot.status === 'paused')
    throw new AppError('conflict', 'Bot is paused; resume it (PATCH status: active) to run it');
}

/** What a refused client is told to wait: about the time a worker slot takes to work off a few runs. */
const RETRY_AFTER_SECONDS = 30;

/*
 * The count is skipped on the hot trigger path while an organization is far from its cap: a
 * recent count plus what this process has added since stays below SKIP_BELOW of the cap. Other
 * processes' additions are not seen for up to COUNT_REUSE_MS, which is why the margin is kept;
 * near the cap every request counts.
 */
const COUNT_REUSE_MS = 1_000;
const SKIP_BELOW = 0.5;

interface RecentCount {
  pending: number;
  at: number;
}

const recentCounts = new WeakMap<Db, Map<string, RecentCount>>();

export interface PendingCapacityInput {
  organizationId: string;
  adding: number;
  /** The organization's own cap, set by the operator (`orgs limits --max-pending`); null: the default. */
  organizationMax: number | null;
}

/** An organization past its pending cap: how many wait, and the cap. */
export interface PendingCapExceeded {
  pending: number;
  maxPending: number;
}

/**
 * Back-pressure: whether `adding` more runs would leave the organization with more pending
 * executions than its cap (its own, else MAX_PENDING_EXECUTIONS_PER_ORG). Null when they fit.
 * Checked before anything is written, so a refused batch creates nothing; concurrent requests
 * may overshoot by what they add at once, which is harmless.
 */
export async function exceedsPendingCap(
  db: Db,
  settings: EngineSettings | undefined,
  input: PendingCapacityInput,
): Promise<PendingCapExceeded | null> {
  const { organizationId, adding } = input;
  const defaultMax = settings?.maxPendingExecutionsPerOrg ?? CONFIG_DEFAULTS.MAX_PENDING_EXECUTIONS_PER_ORG;
  const max = effectiveLimit(input.organizationMax, defaultMax) ?? defaultMax;
  let counts = recentCounts.get(db);
  if (!counts) recentCounts.set(db, (counts = new Map()));
  const recent = counts.get(organizationId);
  const now = Date.now();
  if (recent && now - recent.at < COUNT_REUSE_MS && recent.pending + adding < max * SKIP_BELOW) {
    recent.pending += adding;
    return null;
  }

  const pending = await countPendingExecutions(db, organizationId, max);
  if (pending + adding > max) {
    counts.delete(organizationId);
    return { pending, maxPending: max };
  }
  counts.set(organizationId, { pending: pending + adding, at: now });
  return null;
}

/** exceedsPendingCap for a client: a refusal is 429 rate_limited with Retry-After. */
export async function assertPendingCapacity(
  db: Db,
  settings: EngineSettings | undefined,
  input: PendingCapacityInput,
): Promise<void> {
  const exceeded = await exceedsPendingCap(db, settings, input);
  if (!exceeded) return;
  const { pending, maxPending: max } = exceeded;
  throw new AppError(
    'rate_limited',
    `This organization has ${pending >= max ? `${max} or more` : pending} pending executions; ` +
      `at most ${max} may wait at once. Retry when some have run.`,
    { retryAfterSeconds: RETRY_AFTER_SECONDS, pending, maxPending: max },
  );
}

/** EXECUTION_MAX_INFRA_RETRIES as the role was configured, else its default. */
export const maxInfraRetriesOf = (settings: EngineSettings | undefined): number =>
  settings?.maxInfraRetries ?? CONFIG_DEFAULTS.EXECUTION_MAX_INFRA_RETRIES;

/**
 * The running cap of an organization: its own `maxRunningExecutions` (set by the operator), else
 * MAX_RUNNING_EXECUTIONS_PER_ORG as the role was configured; null: no cap (neither is set).
 */
export function runningCapRule(settings: EngineSettings | undefined): RunningCapRule {
  const fallback = settings?.maxRunningExecutionsPerOrg ?? null;
  return (organizationMax) => effectiveLimit(organizationMax, fallback);
}
