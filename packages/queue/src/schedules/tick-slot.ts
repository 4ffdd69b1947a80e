/** BullMQ names a job scheduler's jobs `repeat:<schedulerId>:<slot ms>` (job-scheduler.ts). */
const SCHEDULER_JOB_ID = /^repeat:(.+):(\d+)$/;

/**
 * The slot (Unix ms) a schedule tick job belongs to, read from its job id. BullMQ creates
 * exactly one job per slot and every process sees the same id, so any scheduler (or a retry,
 * or a stalled job handed to another process) derives the same value: it is the key that makes
 * a second execution for the same tick collide with the first. Null for a job that did not
 * come from the expected job scheduler.
 */
export function tickSlotOf(jobId: string | undefined, schedulerId: string): number | null {
  const match = jobId ? SCHEDULER_JOB_ID.exec(jobId) : null;
  if (!match || match[1] !== schedulerId) return null;
  const slot = Number(match[2]);
  return Number.isSafeInteger(slot) ? slot : null;
}
