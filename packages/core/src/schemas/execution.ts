import { z } from 'zod';

export const ExecutionStatusSchema = z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']);
export type ExecutionStatus = z.infer<typeof ExecutionStatusSchema>;

export const ExecutionTriggerSchema = z.enum(['api', 'schedule', 'rerun']);
export type ExecutionTrigger = z.infer<typeof ExecutionTriggerSchema>;

export const StepStatusSchema = z.enum(['completed', 'failed', 'skipped']);
export type StepStatus = z.infer<typeof StepStatusSchema>;

/** One step's outcome as a run records it (the API shows it as StepOutputSchema, in its contract). */
export interface StepResult {
  index: number;
  action: string;
  status: StepStatus;
  data: unknown;
  error: string | null;
  startedAt: number;
  durationMs: number;
}

/** `page`: what the run's pages said (console, uncaught errors, failed requests, HTTP errors). */
export const LogSourceSchema = z.enum(['runner', 'script', 'system', 'page']);
export type LogSource = z.infer<typeof LogSourceSchema>;
export const LogLevelSchema = z.enum(['debug', 'info', 'warn', 'error']);
export type LogLevel = z.infer<typeof LogLevelSchema>;
