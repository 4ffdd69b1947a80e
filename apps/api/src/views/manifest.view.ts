import { MASKED_SECRET, type Manifest } from '@botfleet/core';
import type { StoredManifest } from '@botfleet/db';

/** The manifest as the API shows it: secrets replaced by the mask. */
export function toManifestView(stored: StoredManifest): Manifest {
  const webhook = stored.webhook
    ? {
        ...stored.webhook,
        ...(stored.webhookSecretEnc ? { secret: MASKED_SECRET } : {}),
        ...(stored.webhookPasswordEnc ? { password: MASKED_SECRET } : {}),
        // Only a webhook that stopped by itself says so; a PUT of the section clears both.
        ...(stored.webhookDisabledAt
          ? { disabledAt: stored.webhookDisabledAt.getTime(), disabledReason: stored.webhookDisabledReason }
          : {}),
      }
    : null;
  return { capabilities: stored.capabilities, webhook, parameters: stored.parameters };
}
