import { MASKED_SECRET, subscribedEvents, webhookUrlAsSeenBy, type Permission } from '@botfleet/core';
import type { Manifest } from '../contracts/manifest.contract';
import type { StoredManifest } from '@botfleet/db';

/** The manifest as the API shows a key of this permission: secrets masked, URL secrets too for `read`. */
export function toManifestView(stored: StoredManifest, viewer: Permission): Manifest {
  const webhook = stored.webhook
    ? {
        ...stored.webhook,
        url: webhookUrlAsSeenBy(stored.webhook.url, viewer),
        // Shown even when it holds the default (contract part 2), so a reader need not know it.
        events: [...subscribedEvents(stored.webhook)],
        ...(stored.webhook.loginUrl ? { loginUrl: webhookUrlAsSeenBy(stored.webhook.loginUrl, viewer) } : {}),
        ...(stored.webhookSecretEnc ? { secret: MASKED_SECRET } : {}),
        ...(stored.webhookPasswordEnc ? { password: MASKED_SECRET } : {}),
        // Only a webhook that stopped by itself says so; a PUT of the section clears both.
        ...(stored.webhookDisabledAt
          ? { disabledAt: stored.webhookDisabledAt.getTime(), disabledReason: stored.webhookDisabledReason }
          : {}),
      }
    : null;
  return { capabilities: stored.capabilities, webhook, parameters: stored.parameters, session: stored.session };
}
