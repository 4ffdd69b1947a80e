import {
  ExecutionStatusSchema as ExecutionStatusValues,
  ExecutionTriggerSchema,
  TimestampSchema,
} from '@botfleet/core';
import { z } from 'zod';
import { PaginationQuerySchema } from './common.contract';

/** The trigger's `params`: a run's, a batch run's, a rerun's and a schedule's; checked against the manifest. */
export const TriggerParamsSchema = z.record(z.string().max(64), z.unknown());

export const TriggerBodySchema = z.strictObject({
  params: TriggerParamsSchema.optional(),
});

export const TriggerHeadersSchema = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1-255 visible ASCII characters')
    .optional()
    .describe('Repeating a key within 24 h returns the first execution (200) instead of starting another'),
});

/** Core's execution statuses, named as the document's `ExecutionStatus` component. */
export const ExecutionStatusSchema = ExecutionStatusValues.meta({ id: 'ExecutionStatus' });

export const ExecutionSchema = z
  .object({
    id: z.string(),
    botId: z.string(),
    botName: z.string().describe('The bot’s name as it is now (a renamed bot’s runs show the new name)'),
    status: ExecutionStatusSchema,
    trigger: ExecutionTriggerSchema,
    params: z.record(z.string(), z.unknown()),
    rerunOf: z.string().optional().describe('For trigger "rerun": the execution this one reruns'),
    botVersion: z
      .number()
      .int()
      .min(1)
      .describe('The bot’s version when the run was triggered: the steps, scripts and manifest it runs'),
    attempt: z
      .number()
      .int()
      .min(1)
      .describe('Which try this is (1-based); a bot with a retry policy may need several'),
    createdAt: TimestampSchema,
    startedAt: TimestampSchema.nullable(),
    completedAt: TimestampSchema.nullable(),
    duration: z.number().int().nullable().describe('ms from start to end (elapsed so far while running)'),
    dataChanged: z
      .boolean()
      .nullable()
      .optional()
      .describe('For a run that completed with data: whether it differs from the previous such run (after dataPath)'),
  })
  .meta({
    id: 'Execution',
    examples: [
      {
        id: 'exe_7Hq2Lw9vB3cN',
        botId: 'bot_2x4Jf8kQ1mZ7',
        botName: 'Price watcher',
        status: 'completed',
        trigger: 'api',
        params: { sku: '42' },
        botVersion: 3,
        attempt: 1,
        createdAt: 1767225600000,
        startedAt: 1767225600150,
        completedAt: 1767225603150,
        duration: 3000,
      },
    ],
  });
export type ExecutionView = z.infer<typeof ExecutionSchema>;

export const LatestExtractSchema = z.object({
  executionId: z.string(),
  completedAt: TimestampSchema,
  data: z.unknown(),
});
export type LatestExtractView = z.infer<typeof LatestExtractSchema>;

const STATUSES = ExecutionStatusValues.options;
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
    .array(z.strictObject({ params: TriggerParamsSchema.optional() }))
    .min(1)
    .max(MAX_BATCH_RUNS)
    .describe(`1 to ${MAX_BATCH_RUNS} runs, each with its params; all are checked before any is created`),
});

export const RerunBodySchema = z.strictObject({
  params: TriggerParamsSchema.optional().describe('Params of the new run; the original’s when left out'),
});

export const BulkCancelBodySchema = z.strictObject({
  status: z
    .array(z.enum(['pending', 'running']))
    .min(1)
    .optional()
    .describe('Which runs to cancel (default `["pending"]`)'),
});

/** The answer to a trigger and a rerun, and each run of a batch's. */
export const TriggerReceiptSchema = z.object({ executionId: z.string(), status: ExecutionStatusSchema });
export type TriggerReceipt = z.infer<typeof TriggerReceiptSchema>;
export const BatchReceiptSchema = z.object({ data: z.array(TriggerReceiptSchema) });
export const BulkCancelResultSchema = z.object({ cancelled: z.number().int() });

/**
 * The caller's organization's runs in the queue, and how many workers serve it. Only figures of
 * the caller's own rows, plus the fleet's worker count (which says nothing about any organization):
 * the queue's total depth would reveal other organizations' load, so it is not offered.
 */
export const QueueOverviewSchema = z
  .object({
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
  })
  .meta({
    id: 'QueueOverview',
    examples: [
      { pending: 12, running: 3, oldestPendingCreatedAt: 1767225600000, oldestPendingAgeMs: 42000, workers: 4 },
    ],
  });
export type QueueOverview = z.infer<typeof QueueOverviewSchema>;
