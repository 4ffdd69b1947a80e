import type { SecretBox } from '@botfleet/core';
import type { DeliveryForAttempt } from '@botfleet/db';

export interface WebhookCredentials {
  secret?: string;
  password?: string;
}

/** Thrown when a sealed secret cannot be opened; the message is safe to record and show. */
export class UnreadableSecretError extends Error {}

/**
 * Opens the manifest's sealed secret and password for one attempt. The plaintext lives only in
 * this attempt's memory: it is never logged, stored or put in a job.
 */
export function openCredentials(delivery: DeliveryForAttempt, secretBox: SecretBox): WebhookCredentials {
  const open = (sealed: string | null, what: string): string | undefined => {
    if (sealed === null) return undefined;
    try {
      return secretBox.decrypt(sealed);
    } catch {
      throw new UnreadableSecretError(`the stored webhook ${what} cannot be decrypted (was SECRETS_KEY changed?)`);
    }
  };
  return { secret: open(delivery.webhookSecretEnc, 'secret'), password: open(delivery.webhookPasswordEnc, 'password') };
}
