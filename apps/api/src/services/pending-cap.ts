import { AppError, effectiveLimit } from '@botfleet/core';
import { countPendingExecutions, type Db } from '@botfleet/db';

/** MAX_PENDING_EXECUTIONS_PER_ORG when the API is not told otherwise. */
export const DEFAULT_MAX_PENDING_EXECUTIONS_PER_ORG = 10_000;

/** What a refused client is told to wait: about the time a worker slot takes to work off a few runs. */
const RETRY_AFTER_SECONDS = 30;

/*
 * The count is skipped on the hot trigger path while an organization is far from its cap: a
 * recent count plus what this process has added since stays below SKIP_BELOW of the cap. Other
 * API processes' additions are not seen for up to COUNT_REUSE_MS, which is why the margin is
 * kept; near the cap every request counts.
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
  /** MAX_PENDING_EXECUTIONS_PER_ORG (DEFAULT_MAX_PENDING_EXECUTIONS_PER_ORG when not given). */
  defaultMax?: number;
}

/**
 * Back-pressure: refuses (429 with Retry-After) runs that would leave the organization with more
 * pending executions than its cap: its own, else the default. Checked before anything is written,
 * so a refused batch creates nothing; concurrent requests may overshoot by what they add at once,
 * which is harmless.
 */
export async function assertPendingCapacity(db: Db, input: PendingCapacityInput): Promise<void> {
  const { organizationId, adding } = input;
  const max =
    effectiveLimit(input.organizationMax, input.defaultMax ?? DEFAULT_MAX_PENDING_EXECUTIONS_PER_ORG) ??
    DEFAULT_MAX_PENDING_EXECUTIONS_PER_ORG;
  let counts = recentCounts.get(db);
  if (!counts) recentCounts.set(db, (counts = new Map()));
  const recent = counts.get(organizationId);
  const now = Date.now();
  if (recent && now - recent.at < COUNT_REUSE_MS && recent.pending + adding < max * SKIP_BELOW) {
    recent.pending += adding;
    return;
  }

  const pending = await countPendingExecutions(db, organizationId, max);
  if (pending + adding > max) {
    counts.delete(organizationId);
    throw new AppError(
      'rate_limited',
      `This organization has ${pending >= max ? `${max} or more` : pending} pending executions; ` +
        `at most ${max} may wait at once. Retry when some have run.`,
      { retryAfterSeconds: RETRY_AFTER_SECONDS, pending, maxPending: max },
    );
  }
  counts.set(organizationId, { pending: pending + adding, at: now });
}
