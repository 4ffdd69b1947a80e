import { isIdOf } from '@botfleet/core';
import { z } from 'zod';
import { CANNOT_EXIST } from '../http/parse-input';

/**
 * A resource id in a path. One without the shape newId gives names nothing, so it is refused as
 * "cannot exist" (a 404 once auth and body have been checked) and never reaches the database.
 */
export function resourceId(prefix: string, resource: string) {
  return z
    .string()
    .refine((value) => isIdOf(prefix, value), { message: `${resource} not found`, params: { [CANNOT_EXIST]: true } })
    .describe(`${resource} id (${prefix}_…)`);
}

export const BotParams = z.strictObject({ botId: resourceId('bot', 'Bot') });
export const ExecutionParams = z.strictObject({ executionId: resourceId('exe', 'Execution') });
export const ApiKeyParams = z.strictObject({ keyId: resourceId('key', 'API key') });
export const ArtifactParams = z.strictObject({ artifactId: resourceId('art', 'Artifact') });
export const ProfileParams = z.strictObject({ profileId: resourceId('prf', 'Profile') });
export const CredentialParams = z.strictObject({ credentialId: resourceId('crd', 'Credential') });
export const DeliveryParams = z.strictObject({ deliveryId: resourceId('dlv', 'Delivery') });
export const ScriptParams = BotParams.extend({ scriptId: resourceId('scr', 'Script') });
export const StepOutputParams = ExecutionParams.extend({ index: z.coerce.number().int().min(0).max(100_000) });
