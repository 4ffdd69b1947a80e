import { executionRun } from './execution-run';
import { scheduleTick } from './schedule-tick';
import { webhookDeliver } from './webhook-deliver';

export * from './execution-run';
export * from './webhook-deliver';
export * from './schedule-tick';

/** Every job botfleet puts on a queue; a new job is declared in a file of its own and added here. */
export const jobCatalog = [executionRun, webhookDeliver, scheduleTick] as const;

export type JobName = (typeof jobCatalog)[number]['name'];
export type QueueName = (typeof jobCatalog)[number]['queue'];
