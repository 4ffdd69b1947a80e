import type { Permission } from './api-key';
import { HttpUrlSchema } from './common';

/** The placeholder secrets read back as; sending it back on PUT keeps the stored secret. */
export const MASKED_SECRET = '********';

/**
 * Where webhooks go (and JWT logins): an absolute http(s) URL without user-info. Credentials in
 * the URL would be stored and shown like any other part of it; `webhook.auth` keeps them sealed.
 */
export const WebhookUrlSchema = HttpUrlSchema.refine((value) => {
  try {
    const url = new URL(value);
    return url.username === '' && url.password === '';
  } catch {
    return true; // HttpUrlSchema already names this problem.
  }
}, 'must not carry user:password@ (set webhook.auth to authenticate)');

/**
 * The URL with everything that may be a credential masked: every query value (names kept), a
 * bare query part, the fragment and any user-info (older rows may hold one). Scheme, host, port
 * and path stay, so the reader still sees where deliveries go.
 */
export function maskWebhookUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return MASKED_SECRET; // Not a URL we stored; show nothing of it.
  }
  const userInfo = url.username !== '' || url.password !== '' ? `${MASKED_SECRET}@` : '';
  const query = url.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq === -1 ? MASKED_SECRET : `${part.slice(0, eq)}=${MASKED_SECRET}`;
    })
    .join('&');
  return (
    `${url.protocol}//${userInfo}${url.host}${url.pathname}` +
    `${query ? `?${query}` : ''}${url.hash ? `#${MASKED_SECRET}` : ''}`
  );
}

/**
 * A webhook URL as a key of this permission may read it. The query of a webhook URL often carries
 * the receiver's token, a secret a `read` key must not learn; `write` and `admin` keys, which can
 * change the webhook anyway, see it whole so a GET can be sent back as a PUT.
 */
export function webhookUrlAsSeenBy(url: string, permission: Permission): string {
  return permission === 'read' ? maskWebhookUrl(url) : url;
}
