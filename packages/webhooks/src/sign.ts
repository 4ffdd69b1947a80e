import { createHmac } from 'node:crypto';

export interface SignPayloadInput {
  /** The `webhook-id` header value. */
  id: string;
  /** The `webhook-timestamp` header value, Unix seconds. */
  timestamp: number;
  /** The exact bytes sent as the request body; re-serializing would break the signature. */
  body: string;
  secret: string;
}

const WHSEC_PREFIX = 'whsec_';

/**
 * Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
 * A `whsec_` secret carries its key base64-encoded (the Standard Webhooks convention, so receivers
 * using the official libraries can paste it as is); any other secret is used as its UTF-8 bytes.
 */
export function signPayload({ id, timestamp, body, secret }: SignPayloadInput): string {
  if (secret.length === 0) throw new TypeError('signPayload needs a non-empty secret');
  const key = secret.startsWith(WHSEC_PREFIX)
    ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
  const digest = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
  return `v1,${digest}`;
}
