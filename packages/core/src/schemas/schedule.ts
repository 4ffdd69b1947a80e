import { z } from 'zod';
import { TimestampSchema } from './common';

export const PutScheduleSchema = z.strictObject({
  interval: z
    .number()
    .int()
    .min(1)
    .max(366 * 24 * 3600)
    .describe('Seconds between runs'),
  active: z.boolean(),
});
export type PutScheduleInput = z.infer<typeof PutScheduleSchema>;

export const ScheduleSchema = z.object({
  interval: z.number().int().nullable(),
  active: z.boolean(),
  nextRunAt: TimestampSchema.nullable(),
  lastRunAt: TimestampSchema.nullable(),
});
export type ScheduleView = z.infer<typeof ScheduleSchema>;
