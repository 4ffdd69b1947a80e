import { z } from 'zod';

/** Every job botfleet puts on a queue. Payloads carry ids only; the row in PostgreSQL is the truth. */
export const jobs = {
  'execution.run': { queue: 'executions', schema: z.object({ executionId: z.string().min(1) }) },
  'webhook.deliver': { queue: 'deliveries', schema: z.object({ deliveryId: z.string().min(1) }) },
  'schedule.tick': { queue: 'schedules', schema: z.object({ botId: z.string().min(1) }) },
} as const;

export type JobName = keyof typeof jobs;
export type QueueName = (typeof jobs)[JobName]['queue'];
export type JobPayload<N extends JobName> = z.infer<(typeof jobs)[N]['schema']>;

export const QUEUE_NAMES: readonly QueueName[] = ['executions', 'deliveries', 'schedules'];
