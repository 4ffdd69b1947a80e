import type { ArtifactStoreSettings } from '@botfleet/core';
import { createPostgresArtifactStore, type ArtifactStore } from './artifact-store';
import { createS3ArtifactStore } from './s3-artifact-store';

/** The artifact store ARTIFACT_STORE names (config.ts parses it with the S3_* settings): the one place that picks. */
export function createArtifactStore(settings: ArtifactStoreSettings): ArtifactStore {
  switch (settings.kind) {
    case 'postgres':
      return createPostgresArtifactStore();
    case 's3':
      return createS3ArtifactStore(settings);
  }
}
