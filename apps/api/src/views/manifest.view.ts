import { MASKED_SECRET, type Manifest } from '@botfleet/core';
import type { StoredManifest } from '@botfleet/db';

/** The manifest as the API shows it: secrets replaced by the mask. */
export function toManifestView(stored: StoredManifest): Manifest {
  const webhook = stored.webhook
    ? {
        ...stored.webhook,
        ...(stored.webhookSecretEnc ? { secret: MASKED_SECRET } : {}),
        ...(stored.webhookPasswordEnc ? { password: MASKED_SECRET } : {}),
      }
    : null;
  return { capabilities: stored.capabilities, webhook, parameters: stored.parameters };
}
