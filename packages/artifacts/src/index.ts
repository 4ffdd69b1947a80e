// Public API of @botfleet/artifacts: where a run's artifact content lives (the row or an S3
// bucket), how it is sealed, read back and deleted.
export * from './artifact-store';
export * from './s3-artifact-store';
export * from './create-artifact-store';
export * from './delete-artifact-content';
