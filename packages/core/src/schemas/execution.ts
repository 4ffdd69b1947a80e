import { z } from 'zod';
import { TimestampSchema } from './common';

export const ExecutionStatusSchema = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type ExecutionStatus = z.infer<typeof ExecutionStatusSchema>;

export const ExecutionTriggerSchema = z.enum(['api', 'schedule', 'rerun']);
export type ExecutionTrigger = z.infer<typeof ExecutionTriggerSchema>;

export const TriggerBodySchema = z.strictObject({
  params: z.record(z.string().max(64), z.unknown()).optional(),
});

export const ExecutionSchema = z.object({
  id: z.string(),
  botId: z.string(),
  status: ExecutionStatusSchema,
  trigger: ExecutionTriggerSchema,
  params: z.record(z.string(), z.unknown()),
  rerunOf: z.string().optional().describe('For trigger "rerun": the execution this one reruns'),
  attempt: z.number().int().min(1).describe('Which try this is (1-based); a bot with a retry policy may need several'),
  createdAt: TimestampSchema,
  startedAt: TimestampSchema.nullable(),
  completedAt: TimestampSchema.nullable(),
  duration: z.number().int().nullable().describe('ms from start to end (elapsed so far while running)'),
  dataChanged: z
    .boolean()
    .nullable()
    .optional()
    .describe('For a run that completed with data: whether it differs from the previous such run (after dataPath)'),
});
export type ExecutionView = z.infer<typeof ExecutionSchema>;

export const StepStatusSchema = z.enum(['completed', 'failed', 'skipped']);
export type StepStatus = z.infer<typeof StepStatusSchema>;

/** One step's outcome as a run records it (the API shows it as StepOutputSchema). */
export interface StepResult {
  index: number;
  action: string;
  status: StepStatus;
  data: unknown;
  error: string | null;
  startedAt: number;
  durationMs: number;
}

export const StepOutputSchema = z.object({
  index: z.number().int(),
  action: z.string(),
  status: StepStatusSchema,
  data: z.unknown().nullable(),
  error: z.string().nullable(),
  startedAt: TimestampSchema,
  duration: z.number().int(),
});
export type StepOutputView = z.infer<typeof StepOutputSchema>;

export const LogSourceSchema = z.enum(['runner', 'script', 'system']);
export type LogSource = z.infer<typeof LogSourceSchema>;
export const LogLevelSchema = z.enum(['debug', 'info', 'warn', 'error']);
export type LogLevel = z.infer<typeof LogLevelSchema>;

export const LogEntrySchema = z.object({
  timestamp: TimestampSchema,
  level: LogLevelSchema,
  source: LogSourceSchema,
  message: z.string(),
  attempt: z.number().int().min(1).describe('The try of the execution that wrote the line'),
});
export type LogEntry = z.infer<typeof LogEntrySchema>;

export const FailureSchema = z.object({
  error: z.string(),
  screenshotUrl: z.string().nullable(),
  stepIndex: z.number().int().nullable(),
});
