import { z } from 'zod';
import { defineJob } from '../define-job';

/**
 * One slot of a bot's schedule (apps/scheduler). Never enqueued by hand: each bot's BullMQ job
 * scheduler produces one per slot (schedules/job-schedulers.ts) with the id
 * `repeat:bot-<botId>:<slot ms>`, from which the processor reads the slot (schedules/tick-slot.ts).
 */
export const scheduleTick = defineJob({
  name: 'schedule.tick',
  queue: 'schedules',
  schema: z.object({ botId: z.string().min(1) }),
  /** Ticks are idempotent (the slot is unique per bot), so retrying a failed one is always safe. */
  options: {
    attempts: 5,
    backoff: { type: 'exponential', delay: 1_000 },
    removeOnComplete: { age: 3_600, count: 1_000 },
    removeOnFail: { age: 7 * 24 * 3_600 },
  },
});

export type ScheduleTickPayload = z.infer<typeof scheduleTick.schema>;
