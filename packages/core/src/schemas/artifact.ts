import { z } from 'zod';
import { TimestampSchema } from './common';

/**
 * What a run keeps besides its outputs: screenshots (screenshot steps, a script's
 * page.screenshot, the failure screenshot) and, with `capabilities.downloads: true`, the files
 * its pages download.
 */
export const ArtifactKindSchema = z.enum(['screenshot', 'download']);
export type ArtifactKind = z.infer<typeof ArtifactKindSchema>;

/** One artifact of an execution, with a signed URL to fetch it without an API key. */
export const ArtifactViewSchema = z.object({
  id: z.string(),
  kind: ArtifactKindSchema,
  stepIndex: z.number().int().optional().describe('The step that made it, when known'),
  contentType: z.string(),
  bytes: z.number().int(),
  createdAt: TimestampSchema,
  url: z.string().describe('Signed URL; expires after SCREENSHOT_URL_TTL_SECONDS'),
});
export type ArtifactView = z.infer<typeof ArtifactViewSchema>;
