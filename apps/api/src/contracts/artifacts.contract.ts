import { z } from 'zod';

/** The signature of an artifact URL (core's artifact-url.ts signs it). */
export const ArtifactSignatureQuerySchema = z.strictObject({
  expires: z.coerce.number().int().min(0),
  signature: z.string().min(1).max(200),
});
