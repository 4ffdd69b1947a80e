// The signer moved to @botfleet/core so the worker can sign the screenshot of an execution.failed
// event with the same key and format the API verifies.
export { createArtifactUrlSigner, type ArtifactUrlSigner } from '@botfleet/core';
