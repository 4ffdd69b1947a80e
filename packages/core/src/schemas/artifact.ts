import { z } from 'zod';

/**
 * What a run keeps besides its outputs: screenshots (screenshot steps, a script's
 * page.screenshot, the failure screenshot) and, with `capabilities.downloads: true`, the files
 * its pages download; as evidence, its Playwright trace (`capabilities.trace`), a HAR
 * (`capabilities.har`) and a screenshot after every step (`capabilities.stepScreenshots`).
 */
export const ArtifactKindSchema = z.enum(['screenshot', 'download', 'trace', 'har', 'stepScreenshot']);
export type ArtifactKind = z.infer<typeof ArtifactKindSchema>;

/**
 * The content type each kind is stored and served with. A download's is neutral: what a page
 * claims for a file is not trusted to be rendered anywhere.
 */
export const ARTIFACT_CONTENT_TYPES = {
  screenshot: 'image/png',
  stepScreenshot: 'image/png',
  trace: 'application/zip',
  har: 'application/json',
  download: 'application/octet-stream',
} as const satisfies Record<ArtifactKind, string>;

/** An artifact's content as a run hands it over: bytes in memory, or a file the store streams from. */
export type ArtifactContent = Buffer | { path: string };
