import {
  CapabilitiesSchema,
  ParameterDefinitionSchema,
  ParametersSchema,
  SessionPersistSchema,
  WebhookInputSchema,
} from '@botfleet/core';
import { z } from 'zod';

/** The manifest's `session` section as a PUT gives it: the profile is checked by the service (404). */
export const SessionInputSchema = z
  .strictObject({
    profileId: z.string().min(1).max(64).describe('A profile of the organization (prf_…)'),
    persist: SessionPersistSchema.default('onSuccess'),
  })
  .describe('The browser profile runs start from; null removes it');

/** PUT /bots/:botId/manifest: the sections to replace; absent ones stay. */
export const ManifestUpdateSchema = z.strictObject({
  capabilities: CapabilitiesSchema.optional(),
  webhook: WebhookInputSchema.nullable().optional(),
  parameters: ParametersSchema.optional(),
  session: SessionInputSchema.nullable().optional(),
});
export type ManifestUpdate = z.infer<typeof ManifestUpdateSchema>;

export const ManifestSchema = z
  .object({
    capabilities: CapabilitiesSchema,
    webhook: WebhookInputSchema.nullable().describe('secret and password read back as "********"'),
    parameters: z.array(ParameterDefinitionSchema),
    session: z
      .object({ profileId: z.string(), persist: SessionPersistSchema })
      .nullable()
      .describe('The browser profile runs start from and, by persist, save back to; null: none'),
  })
  .meta({ id: 'Manifest' });
export type Manifest = z.infer<typeof ManifestSchema>;
