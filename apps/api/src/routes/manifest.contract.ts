import { CapabilitiesSchema, ParameterDefinitionSchema, ParametersSchema, WebhookInputSchema } from '@botfleet/core';
import { z } from 'zod';

/** PUT /bots/:botId/manifest: the sections to replace; absent ones stay. */
export const ManifestUpdateSchema = z.strictObject({
  capabilities: CapabilitiesSchema.optional(),
  webhook: WebhookInputSchema.nullable().optional(),
  parameters: ParametersSchema.optional(),
});
export type ManifestUpdate = z.infer<typeof ManifestUpdateSchema>;

export const ManifestSchema = z
  .object({
    capabilities: CapabilitiesSchema,
    webhook: WebhookInputSchema.nullable().describe('secret and password read back as "********"'),
    parameters: z.array(ParameterDefinitionSchema),
  })
  .meta({ id: 'Manifest' });
export type Manifest = z.infer<typeof ManifestSchema>;
