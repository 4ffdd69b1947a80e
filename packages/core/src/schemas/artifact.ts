import { z } from 'zod';

/**
 * What a run keeps besides its outputs: screenshots (screenshot steps, a script's
 * page.screenshot, the failure screenshot) and, with `capabilities.downloads: true`, the files
 * its pages download.
 */
export const ArtifactKindSchema = z.enum(['screenshot', 'download']);
export type ArtifactKind = z.infer<typeof ArtifactKindSchema>;
