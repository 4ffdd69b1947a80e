import type { SecretBox } from '@botfleet/core';
import type { DeliveryForAttempt } from '@botfleet/db';

export interface WebhookCredentials {
  secret?: string;
  password?: string;
}

/** Thrown when a sealed secret cannot be opened; the message is safe to record and show. */
export class UnreadableSecretError extends Error {}

/** Opens the manifest's sealed secret and password the attempt's claim read. */
export type CredentialOpener = (delivery: DeliveryForAttempt) => WebhookCredentials;

/**
 * Opens sealed credentials once per bot, not once per attempt. An entry holds the sealed strings it
 * was opened from and is used only while the claim (which reads the manifest in its own statement)
 * returns those very strings: a PUT that rotates the secret or password writes a new ciphertext
 * (each seal has a fresh nonce), so the first attempt claimed after it committed opens the new one.
 * The plaintext lives only in this process's memory: it is never logged, stored or put in a job.
 */
export function createCredentialOpener(secretBox: SecretBox, maxBots = 10_000): CredentialOpener {
  const opened = new Map<
    string,
    { secretEnc: string | null; passwordEnc: string | null; credentials: WebhookCredentials }
  >();
  const open = (sealed: string | null, what: string): string | undefined => {
    if (sealed === null) return undefined;
    try {
      return secretBox.decrypt(sealed);
    } catch {
      throw new UnreadableSecretError(`the stored webhook ${what} cannot be decrypted (was SECRETS_KEY changed?)`);
    }
  };
  return (delivery) => {
    const cached = opened.get(delivery.botId);
    if (cached && cached.secretEnc === delivery.webhookSecretEnc && cached.passwordEnc === delivery.webhookPasswordEnc)
      return cached.credentials;
    const credentials = {
      secret: open(delivery.webhookSecretEnc, 'secret'),
      password: open(delivery.webhookPasswordEnc, 'password'),
    };
    opened.delete(delivery.botId);
    // Oldest first: past the bound, the bot opened longest ago makes room.
    if (opened.size >= maxBots) opened.delete(opened.keys().next().value!);
    opened.set(delivery.botId, {
      secretEnc: delivery.webhookSecretEnc,
      passwordEnc: delivery.webhookPasswordEnc,
      credentials,
    });
    return credentials;
  };
}
