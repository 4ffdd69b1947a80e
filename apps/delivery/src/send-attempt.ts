import type { Logger } from '@botfleet/core';
import type { DeliveryForAttempt } from '@botfleet/db';
import { deliverWebhook, type ConnectionPool, type DeliveryResult, type JwtTokenCache } from '@botfleet/webhooks';
import { UnreadableSecretError, type CredentialOpener } from './open-credentials';

/** What one request of an attempt needs from the delivery role. */
export interface SendAttemptDeps {
  logger: Logger;
  tokenCache: JwtTokenCache;
  pool: ConnectionPool;
  allowPrivateNetwork: boolean;
  timeoutMs: number;
}

/**
 * Sends a claimed attempt once (signed, or logged in, as its webhook says). A configuration
 * problem (a secret that cannot be opened) comes back as a failed answer, so it is recorded.
 */
export async function sendAttempt(
  deps: SendAttemptDeps,
  openCredentials: CredentialOpener,
  delivery: DeliveryForAttempt,
): Promise<DeliveryResult> {
  let credentials;
  try {
    credentials = openCredentials(delivery);
  } catch (err) {
    if (!(err instanceof UnreadableSecretError)) throw err;
    deps.logger.error({ deliveryId: delivery.id, botId: delivery.botId }, err.message);
    return { ok: false, statusCode: null, error: err.message, durationMs: 0, retryAfterMs: null };
  }
  return deliverWebhook(
    {
      deliveryId: delivery.id,
      organizationId: delivery.organizationId,
      botId: delivery.botId,
      executionId: delivery.executionId,
      event: delivery.event,
      url: delivery.url,
      auth: delivery.auth,
      body: delivery.body,
      secret: credentials.secret,
      password: credentials.password,
      loginUrl: delivery.loginUrl ?? undefined,
      username: delivery.username ?? undefined,
    },
    {
      allowPrivateNetwork: deps.allowPrivateNetwork,
      timeoutMs: deps.timeoutMs,
      tokenCache: deps.tokenCache,
      logger: deps.logger,
      pool: deps.pool,
    },
  );
}
