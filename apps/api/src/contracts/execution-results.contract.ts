import { ArtifactKindSchema, LogLevelSchema, LogSourceSchema, StepStatusSchema, TimestampSchema } from '@botfleet/core';
import { z } from 'zod';

export const StepOutputSchema = z
  .object({
    index: z.number().int(),
    action: z.string(),
    status: StepStatusSchema,
    data: z.unknown().nullable(),
    error: z.string().nullable(),
    startedAt: TimestampSchema,
    duration: z.number().int(),
  })
  .meta({ id: 'StepOutput' });
export type StepOutputView = z.infer<typeof StepOutputSchema>;

export const LogEntrySchema = z
  .object({
    timestamp: TimestampSchema,
    level: LogLevelSchema,
    source: LogSourceSchema,
    message: z.string(),
    attempt: z.number().int().min(1).describe('The try of the execution that wrote the line'),
  })
  .meta({ id: 'LogEntry' });
export type LogEntry = z.infer<typeof LogEntrySchema>;

export const FailureSchema = z
  .object({
    error: z.string(),
    screenshotUrl: z.string().nullable(),
    stepIndex: z.number().int().nullable(),
  })
  .meta({ id: 'Failure' });
export type FailureView = z.infer<typeof FailureSchema>;

export const ExtractSchema = z.object({ data: z.unknown() });
export type ExtractView = z.infer<typeof ExtractSchema>;

/** One artifact of an execution, with a signed URL to fetch it without an API key. */
export const ArtifactViewSchema = z
  .object({
    id: z.string(),
    kind: ArtifactKindSchema,
    stepIndex: z.number().int().optional().describe('The step that made it, when known'),
    contentType: z.string(),
    bytes: z.number().int(),
    createdAt: TimestampSchema,
    url: z.string().describe('Signed URL; expires after SCREENSHOT_URL_TTL_SECONDS'),
  })
  .meta({ id: 'Artifact' });
export type ArtifactView = z.infer<typeof ArtifactViewSchema>;
