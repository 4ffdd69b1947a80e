import { ExecutionStatusSchema, ExecutionTriggerSchema, PaginationQuerySchema, TimestampSchema } from '@botfleet/core';
import { z } from 'zod';

const STATUSES = ExecutionStatusSchema.options;
const STATUS_LIST = new RegExp(`^(${STATUSES.join('|')})(,(${STATUSES.join('|')}))*$`);

/** Unix ms in a query string. */
const QueryTimestamp = z.coerce
  .number({ message: 'must be a Unix time in milliseconds' })
  .int('must be a Unix time in milliseconds')
  .min(0)
  .max(8.64e15);

/** Filters of an execution list (a bot's, or the whole organization's). */
export const ExecutionListQuerySchema = PaginationQuerySchema.extend({
  status: z
    .string()
    .regex(STATUS_LIST, `must be a comma list of ${STATUSES.join(', ')}`)
    .optional()
    .describe('Only executions in one of these states, e.g. `failed,cancelled`'),
  trigger: ExecutionTriggerSchema.optional().describe('Only executions started this way'),
  createdAfter: QueryTimestamp.optional().describe('Only executions created at or after this time (Unix ms)'),
  createdBefore: QueryTimestamp.optional().describe('Only executions created before this time (Unix ms)'),
});
export type ExecutionListQuery = z.infer<typeof ExecutionListQuerySchema>;

export const OrganizationExecutionListQuerySchema = ExecutionListQuerySchema.extend({
  botId: z.string().max(64).optional().describe('Only this bot’s executions'),
});

export const MAX_BATCH_RUNS = 1_000;

export const BatchBodySchema = z.strictObject({
  runs: z
    .array(z.strictObject({ params: z.record(z.string().max(64), z.unknown()).optional() }))
    .min(1)
    .max(MAX_BATCH_RUNS)
    .describe(`1 to ${MAX_BATCH_RUNS} runs, each with its params; all are checked before any is created`),
});

export const RerunBodySchema = z.strictObject({
  params: z
    .record(z.string().max(64), z.unknown())
    .optional()
    .describe('Params of the new run; the original’s when left out'),
});

export const BulkCancelBodySchema = z.strictObject({
  status: z
    .array(z.enum(['pending', 'running']))
    .min(1)
    .optional()
    .describe('Which runs to cancel (default `["pending"]`)'),
});

export const TriggerReceiptSchema = z.object({ executionId: z.string(), status: ExecutionStatusSchema });
export const BatchReceiptSchema = z.object({ data: z.array(TriggerReceiptSchema) });
export const BulkCancelResultSchema = z.object({ cancelled: z.number().int() });

/**
 * The caller's organization's runs in the queue, and how many workers serve it. Only figures of
 * the caller's own rows, plus the fleet's worker count (which says nothing about any organization):
 * the queue's total depth would reveal other organizations' load, so it is not offered.
 */
export const QueueOverviewSchema = z.object({
  pending: z.number().int().min(0).describe('The organization’s executions waiting for a worker'),
  running: z.number().int().min(0).describe('The organization’s executions running now'),
  oldestPendingCreatedAt: TimestampSchema.nullable().describe(
    'When the oldest pending execution was created (Unix ms); null when none is pending',
  ),
  oldestPendingAgeMs: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe('How long the oldest pending execution has waited, in ms; null when none is pending'),
  workers: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe('Workers connected to the executions queue, fleet-wide; null when Redis would not say'),
});
export type QueueOverview = z.infer<typeof QueueOverviewSchema>;
