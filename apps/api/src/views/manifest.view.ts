import { MASKED_SECRET, webhookUrlAsSeenBy, type Manifest, type Permission } from '@botfleet/core';
import type { StoredManifest } from '@botfleet/db';

/** The manifest as the API shows a key of this permission: secrets masked, URL secrets too for `read`. */
export function toManifestView(stored: StoredManifest, viewer: Permission): Manifest {
  const webhook = stored.webhook
    ? {
        ...stored.webhook,
        url: webhookUrlAsSeenBy(stored.webhook.url, viewer),
        ...(stored.webhook.loginUrl ? { loginUrl: webhookUrlAsSeenBy(stored.webhook.loginUrl, viewer) } : {}),
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
