import { ArtifactKindSchema } from '@botfleet/core';
import type { ArtifactSummary } from '@botfleet/db';
import type { ArtifactView } from '../contracts/execution-results.contract';

/**
 * One artifact as the API lists it. The screenshot taken when a run failed is stored apart (the
 * failure view finds it by kind) but is a screenshot to a client, of the step that failed. Other
 * stored kinds are the contract's own; one this API does not know yet reads as a screenshot, the
 * kind every older row had.
 */
export function toArtifactView(
  artifact: ArtifactSummary,
  failedStepIndex: number | null,
  signUrl: (artifactId: string) => string,
): ArtifactView {
  const failure = artifact.kind === 'failure-screenshot';
  const known = ArtifactKindSchema.safeParse(artifact.kind);
  const stepIndex = failure ? failedStepIndex : artifact.stepIndex;
  return {
    id: artifact.id,
    kind: known.success ? known.data : 'screenshot',
    ...(stepIndex !== null ? { stepIndex } : {}),
    contentType: artifact.contentType,
    bytes: artifact.bytes,
    createdAt: artifact.createdAt.getTime(),
    url: signUrl(artifact.id),
  };
}
