import type { StepOutputView } from '../contracts/execution-results.contract';
import type { StepOutput } from '@botfleet/db';

/**
 * A step's output. A screenshot step's data names its artifact; readers get a signed URL of it
 * beside the id, since the artifact itself is only served through such URLs.
 */
export function toStepOutputView(step: StepOutput, signArtifactUrl: (artifactId: string) => string): StepOutputView {
  const data = step.data as { artifactId?: unknown } | null;
  const shown =
    data && typeof data === 'object' && typeof data.artifactId === 'string'
      ? { ...data, screenshotUrl: signArtifactUrl(data.artifactId) }
      : data;
  return {
    index: step.index,
    action: step.action,
    status: step.status,
    data: shown ?? null,
    error: step.error,
    startedAt: step.startedAt.getTime(),
    duration: step.durationMs,
  };
}
