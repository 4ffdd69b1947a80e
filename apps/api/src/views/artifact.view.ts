import type { ArtifactKind } from '@botfleet/core';
import type { ArtifactSummary } from '@botfleet/db';
import type { ArtifactView } from '../routes/execution-results.contract';

/**
 * One artifact as the API lists it. The screenshot taken when a run failed is stored apart (the
 * failure view finds it by kind) but is a screenshot to a client, of the step that failed.
 */
export function toArtifactView(
  artifact: ArtifactSummary,
  failedStepIndex: number | null,
  signUrl: (artifactId: string) => string,
): ArtifactView {
  const failure = artifact.kind === 'failure-screenshot';
  const kind: ArtifactKind = failure ? 'screenshot' : artifact.kind === 'download' ? 'download' : 'screenshot';
  return {
    id: artifact.id,
    kind,
    ...(failure && failedStepIndex !== null ? { stepIndex: failedStepIndex } : {}),
    contentType: artifact.contentType,
    bytes: artifact.bytes,
    createdAt: artifact.createdAt.getTime(),
    url: signUrl(artifact.id),
  };
}
