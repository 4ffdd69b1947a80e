/**
 * How SHUTDOWN_GRACE_SECONDS is spent after SIGTERM: consumers drain (runs and attempts in flight
 * finish) for most of it, and the rest is kept for what follows the drain: handing unfinished
 * runs back to the queue, closing Chromium, Redis and the database. The process exits within the
 * grace period, so an orchestrator that waits a little longer (terminationGracePeriodSeconds,
 * stop_grace_period) never has to kill it.
 */
export function shutdownBudget(graceSeconds: number): { graceMs: number; drainMs: number } {
  const graceMs = graceSeconds * 1000;
  const reserveMs = Math.min(10_000, Math.floor(graceMs / 3));
  return { graceMs, drainMs: graceMs - reserveMs };
}
