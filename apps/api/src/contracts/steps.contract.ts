import { RecordingSchema, RecordingWarningSchema, StepSchema as StepUnionSchema } from '@botfleet/core';
import { z } from 'zod';
import { listOf } from './common.contract';

/** A step as the API reads and writes it: the union of the step actions' own schemas (core's steps/registry.ts). */
export const StepSchema = StepUnionSchema.meta({ id: 'Step' });

export const PutStepsSchema = z.strictObject({ steps: z.array(StepSchema).max(500) }).superRefine((body, ctx) => {
  body.steps.forEach((step, i) => {
    if (step.index !== undefined && step.index !== i) {
      ctx.addIssue({ code: 'custom', path: ['steps', i, 'index'], message: `index must be ${i} (its position)` });
    }
  });
});

export const StepsResponseSchema = listOf(StepSchema);

export const StepsFormatQuerySchema = z.object({
  format: z
    .enum(['botfleet', 'recorder'])
    .optional()
    .describe('`recorder`: the steps as a Chrome DevTools Recorder recording (a JSON file Chrome can import)'),
});

/** GET /bots/:botId/steps: the steps, or with `format=recorder` a recording. */
export const StepsOrRecordingSchema = z.union([StepsResponseSchema, RecordingSchema]);

export const ImportResponseSchema = StepsResponseSchema.extend({
  warnings: z.array(RecordingWarningSchema).describe('What the import skipped or changed, by 0-based recording step'),
});
