import {
  AppError,
  buildTestEventBody,
  CONFIG_DEFAULTS,
  newId,
  WEBHOOK_TEST_EVENT,
  WebhookUrlSchema,
  type SecretBox,
} from '@botfleet/core';
import type { StoredManifest } from '@botfleet/db';
import { deliverWebhook, type JwtTokenCache } from '@botfleet/webhooks';
import type { ApiDeps } from '../deps';

export interface WebhookTestResult {
  delivered: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * Sends one `webhook.test` event to the bot's webhook now, signed (or logged in) as configured,
 * and reports what the receiver answered. Never stored and never retried: it is a probe, so a
 * failure is the answer, not something to try again. Works on a disabled webhook too, so a user
 * can check the receiver before enabling it again.
 */
export async function sendWebhookTest(
  deps: Pick<ApiDeps, 'logger' | 'settings'> & { secretBox: SecretBox; tokenCache: JwtTokenCache },
  bot: { id: string; organizationId: string },
  manifest: StoredManifest,
): Promise<WebhookTestResult> {
  const { webhook } = manifest;
  if (!webhook) throw new AppError('conflict', 'The bot has no webhook to test');
  // A webhook stored before user-info was refused is not sent to either: the same rule as a PUT.
  const problems = (['url', 'loginUrl'] as const).flatMap((field) => {
    const value = webhook[field];
    const check = value === undefined ? null : WebhookUrlSchema.safeParse(value);
    return check && !check.success
      ? [{ path: `webhook.${field}`, message: check.error.issues[0]?.message ?? 'is not allowed' }]
      : [];
  });
  if (problems.length > 0) {
    throw new AppError(
      'validation_error',
      `${problems.map((p) => `${p.path} ${p.message}`).join('; ')}; PUT the webhook section to fix it`,
      problems,
    );
  }
  const open = (sealed: string | null) => {
    if (sealed === null) return undefined;
    try {
      return deps.secretBox.decrypt(sealed);
    } catch {
      throw new AppError('conflict', 'The stored webhook secret cannot be decrypted (was SECRETS_KEY changed?)');
    }
  };
  const result = await deliverWebhook(
    {
      deliveryId: newId('msg'),
      organizationId: bot.organizationId,
      botId: bot.id,
      event: WEBHOOK_TEST_EVENT,
      url: webhook.url,
      auth: webhook.auth,
      body: buildTestEventBody(bot.id, new Date()),
      secret: open(manifest.webhookSecretEnc),
      password: open(manifest.webhookPasswordEnc),
      loginUrl: webhook.loginUrl,
      username: webhook.username,
    },
    {
      allowPrivateNetwork: deps.settings.allowPrivateNetwork ?? false,
      timeoutMs: deps.settings.webhookTimeoutMs ?? CONFIG_DEFAULTS.WEBHOOK_TIMEOUT_MS,
      tokenCache: deps.tokenCache,
      logger: deps.logger,
    },
  );
  return { delivered: result.ok, statusCode: result.statusCode, durationMs: result.durationMs, error: result.error };
}
