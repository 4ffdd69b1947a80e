import type { DeliveryClaim, DeliveryOutcome } from '@botfleet/db';

/*
 * What becomes of a delivery after an attempt, decided from the receiver's answer and the
 * operator's settings alone (docs/webhooks.md: Retries, The receiver's word, Slow receivers).
 * Pure, so every outcome is unit tested without HTTP or a database; deliveries.ts applies it.
 */

/** The delivery role's settings (the engine reads no environment). */
export interface DeliveryPolicy {
  /** WEBHOOK_TIMEOUT_MS: the bound of one request. */
  timeoutMs: number;
  /** WEBHOOK_RETRY_DELAYS_MS: the wait after each failed attempt of a series. */
  retryDelaysMs: readonly number[];
  /** WEBHOOK_DISABLE_AFTER_DAYS in ms; unset, only a 410 Gone disables a webhook. */
  disableAfterMs?: number;
}

/** Jobs may start a little before the row's due time when process clocks disagree. */
const CLOCK_SKEW_TOLERANCE_MS = 1_000;

/** A busy destination's attempt, given back unmade, is asked for again this much later. */
export const DESTINATION_BUSY_RECHECK_MS = 250;

/** The answer that ends a delivery at once and disables its webhook. */
const GONE = 410;

const DAY_MS = 86_400_000;

/**
 * Which deliveries a claim made `now` takes, and the lease it writes: the lease covers the worst
 * case of one attempt (login, post, re-login, post). A due time in the future means another job
 * holds the attempt's lease (or this job is a stray early one): the claim leaves that row out.
 */
export function claimWindow(policy: DeliveryPolicy, now: number): Omit<DeliveryClaim, 'deliveryIds'> {
  return {
    dueBy: new Date(now + CLOCK_SKEW_TOLERANCE_MS),
    leaseUntil: new Date(now + 4 * policy.timeoutMs + 30_000),
  };
}

/**
 * The wait before the next attempt, or null to give up. `attemptsMade` counts every attempt so
 * far including the first, so `delaysMs` of length n allows 1 + n attempts in all; a delivery
 * whose call returns null is marked failed. (A redelivery counts its own series from 1 again.)
 */
export function nextRetryDelayMs(attemptsMade: number, delaysMs: readonly number[]): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be a whole number >= 1, got ${attemptsMade}`);
  }
  return delaysMs[attemptsMade - 1] ?? null;
}

/**
 * The delay before the next attempt of the series: the schedule's, or, when the receiver said
 * `Retry-After` (429/503), the receiver's, capped by the schedule's longest delay
 * (docs/webhooks.md, The receiver's word), so no receiver can park a delivery longer than the
 * operator's own schedule would: with delays of seconds, a `Retry-After: 60` waits seconds. Null
 * when the schedule has no attempt left: `Retry-After` never adds attempts.
 */
export function retryDelayMs(
  attemptInSeries: number,
  delaysMs: readonly number[],
  retryAfterMs: number | null,
): number | null {
  const scheduled = nextRetryDelayMs(attemptInSeries, delaysMs);
  if (scheduled === null || retryAfterMs === null) return scheduled;
  return Math.min(Math.max(0, retryAfterMs), Math.max(...delaysMs));
}

/** The receiver's answer to one attempt (what @botfleet/webhooks' deliverWebhook reports). */
export interface DeliveryAnswer {
  ok: boolean;
  /** Null when the receiver gave none (refused, timeout, network, login failure). */
  statusCode: number | null;
  /** Safe to store and show. */
  error: string | null;
  durationMs: number;
  /** The receiver's `Retry-After` on a 429 or 503, or null. */
  retryAfterMs: number | null;
}

/** Why a webhook was disabled: the receiver answered 410, or only failed for days. */
export type WebhookDisableReason = 'gone' | 'failing';

export interface WebhookDisable {
  reason: WebhookDisableReason;
  /** Stored as the webhook's disabledReason. */
  message: string;
}

/** What one recorded attempt led to: delivered, a retry scheduled, or the delivery given up. */
export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

export interface DeliveryAttemptFacts {
  answer: DeliveryAnswer;
  /** 1 for the first attempt of the series (a redelivery starts a new one). */
  attemptInSeries: number;
  startedAt: Date;
  /**
   * Since when the webhook has failed without a success in between, or null. For an answer that
   * extendsFailingStreak, the streak is noted before the decision, so it is never null then.
   */
  failingSince: Date | null;
}

export interface DeliveryDecision {
  /** What the row becomes. */
  row: DeliveryOutcome;
  outcome: AttemptOutcome;
  /** The wait before the next attempt, when there is one. */
  retryInMs: number | null;
  /** The webhook is disabled with this (and the delivery given up). */
  disable: WebhookDisable | null;
  /** A success ends the webhook's failing streak. */
  endsFailingStreak: boolean;
}

/**
 * Whether a failed answer counts towards the webhook's failing streak, which disables it after
 * `disableAfterMs`; a 410 Gone disables it at once instead. Noted once per streak, not per attempt.
 */
export function extendsFailingStreak(answer: DeliveryAnswer): boolean {
  return !answer.ok && answer.statusCode !== GONE;
}

/** What the attempt's answer makes of the delivery and its webhook, as of `now`. */
export function decideDeliveryAttempt(
  policy: DeliveryPolicy,
  facts: DeliveryAttemptFacts,
  now: Date,
): DeliveryDecision {
  if (facts.answer.ok) {
    return {
      row: { status: 'succeeded' },
      outcome: 'delivered',
      retryInMs: null,
      disable: null,
      endsFailingStreak: facts.failingSince !== null,
    };
  }
  const disable = disableOf(policy, facts);
  const retryInMs = disable
    ? null
    : retryDelayMs(facts.attemptInSeries, policy.retryDelaysMs, facts.answer.retryAfterMs);
  if (retryInMs === null)
    return { row: { status: 'failed' }, outcome: 'failed', retryInMs, disable, endsFailingStreak: false };
  return {
    row: { status: 'pending', nextAttemptAt: new Date(now.getTime() + retryInMs) },
    outcome: 'retry',
    retryInMs,
    disable: null,
    endsFailingStreak: false,
  };
}

/**
 * Whether this failed attempt ends the webhook: the receiver said 410 Gone, or it has failed
 * without a success in between for `disableAfterMs`. Null while it is still worth retrying.
 */
function disableOf(policy: DeliveryPolicy, facts: DeliveryAttemptFacts): WebhookDisable | null {
  if (facts.answer.statusCode === GONE) return { reason: 'gone', message: 'the receiver answered 410 Gone' };
  if (policy.disableAfterMs === undefined || facts.failingSince === null) return null;
  if (facts.startedAt.getTime() - facts.failingSince.getTime() < policy.disableAfterMs) return null;
  const days = Math.round((policy.disableAfterMs / DAY_MS) * 100) / 100;
  return { reason: 'failing', message: `every delivery failed for ${days} day(s)` };
}
