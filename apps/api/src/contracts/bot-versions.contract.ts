import { TimestampSchema } from '@botfleet/core';
import { z } from 'zod';
import { ManifestSchema } from './manifest.contract';
import { resourceId } from './path-params';
import { ScriptSchema } from './scripts.contract';
import { StepSchema } from './steps.contract';

/** A version number in a path: 1, 2, 3... (anything else is a 400, as a bad query value is). */
const VersionNumberSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(2 ** 31 - 1)
  .describe('The version number (1 is the bot as created)');

export const BotVersionParams = z.strictObject({
  botId: resourceId('bot', 'Bot'),
  version: VersionNumberSchema,
});

export const BotVersionsQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/, 'is not a cursor returned by this API')
    .transform(Number)
    .optional()
    .describe('nextCursor from the previous page'),
});

const ChangedPartSchema = z.enum(['steps', 'scripts', 'manifest']);

const CountChangeSchema = z.object({
  before: z.number().int().nullable().describe('In the version before; null for version 1'),
  after: z.number().int(),
});

export const BotVersionSummarySchema = z
  .object({
    version: z.number().int(),
    createdAt: TimestampSchema,
    changes: z
      .array(ChangedPartSchema)
      .describe('What differs from the version before (empty for version 1, which is the bot as created)'),
    restoredFrom: z.number().int().nullable().describe('The version this one restored, when a restore made it'),
    current: z.boolean().describe('Whether this is the bot’s current version, the one new runs run'),
    summary: z
      .object({
        steps: CountChangeSchema,
        scripts: CountChangeSchema,
        manifestSections: z
          .array(z.enum(['capabilities', 'webhook', 'parameters', 'session']))
          .describe('Manifest sections that differ from the version before (a new webhook secret counts)'),
      })
      .describe('What changed, in numbers: step and script counts before and after, manifest sections'),
  })
  .meta({
    id: 'BotVersionSummary',
    examples: [
      {
        version: 3,
        createdAt: 1767225600000,
        changes: ['steps', 'scripts'],
        restoredFrom: null,
        current: true,
        summary: { steps: { before: 4, after: 5 }, scripts: { before: 1, after: 1 }, manifestSections: [] },
      },
    ],
  });
export type BotVersionSummaryView = z.infer<typeof BotVersionSummarySchema>;

/** A script as a version keeps it: what runs, without the row's timestamps. */
export const VersionScriptSchema = ScriptSchema.omit({ createdAt: true, updatedAt: true }).meta({
  id: 'VersionScript',
});

export const BotVersionSchema = BotVersionSummarySchema.extend({
  botId: z.string(),
  steps: z.array(StepSchema),
  scripts: z.array(VersionScriptSchema),
  manifest: ManifestSchema.describe('Secrets masked as GET /bots/:botId/manifest masks them'),
}).meta({ id: 'BotVersion' });
export type BotVersionView = z.infer<typeof BotVersionSchema>;
