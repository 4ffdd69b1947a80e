import { TimestampSchema } from '@botfleet/core';
import { z } from 'zod';

export const CreateScriptSchema = z.strictObject({
  name: z.string().min(1).max(200),
  source: z.string().min(1).max(200_000),
  active: z.boolean().optional(),
});

export const UpdateScriptSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  source: z.string().min(1).max(200_000).optional(),
  active: z.boolean().optional(),
});

export const ScriptSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    language: z.literal('javascript'),
    origin: z.enum(['generated', 'handwritten']),
    source: z.string(),
    active: z.boolean(),
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .meta({ id: 'Script' });
export type ScriptView = z.infer<typeof ScriptSchema>;
