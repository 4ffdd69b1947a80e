import { performance } from 'node:perf_hooks';
import type { WebhookAuth } from '@botfleet/core';
import type { ConnectionPool } from './connection-pool';
import { HttpPostError, JwtLoginError } from './errors';
import { httpPost, type HttpPostResponse } from './http-post';
import type { JwtTokenCache } from './jwt-token-cache';
import { parseRetryAfterMs } from './retry-after';
import { signPayload } from './sign';

export interface DeliveryRequest {
  /** Sent as `webhook-id`; the same on every retry so receivers can deduplicate. */
  deliveryId: string;
  /** The bot's organization: JWT tokens are cached per organization and never shared across them. */
  organizationId: string;
  botId: string;
  /** Absent for a test send, which belongs to no execution. */
  executionId?: string;
  /** Sent as `x-botfleet-event` (default `execution.completed`). */
  event?: string;
  url: string;
  auth: WebhookAuth;
  secret?: string;
  loginUrl?: string;
  username?: string;
  password?: string;
  /** The exact JSON string to send (see buildDeliveryBody). */
  body: string;
  /** Defaults to the current time. */
  timestampSeconds?: number;
}

/** The subset of a pino logger this module uses. */
export interface DeliveryLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface DeliveryOptions {
  allowPrivateNetwork: boolean;
  /** Per HTTP request (login and webhook each get the full budget). */
  timeoutMs?: number;
  /** Required for `jwt`; shared across deliveries so one login serves many. */
  tokenCache?: JwtTokenCache;
  logger?: DeliveryLogger;
  /** Keep-alive sockets shared by deliveries and logins (see connection-pool.ts). */
  pool?: ConnectionPool;
}

export interface DeliveryResult {
  ok: boolean;
  /** The receiver's status, or null when it gave none (refused, timeout, network, login failure). */
  statusCode: number | null;
  /** Safe to store and show: never contains the secret, password or token. */
  error: string | null;
  durationMs: number;
  /** How long the receiver asked us to wait (`Retry-After` on a 429 or 503), or null. */
  retryAfterMs: number | null;
}

/** The answers whose `Retry-After` the receiver means for us. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

const USER_AGENT = 'botfleet-webhooks/1';

function baseHeaders(request: DeliveryRequest, timestamp: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': request.deliveryId,
    'webhook-timestamp': String(timestamp),
    'x-botfleet-event': request.event ?? 'execution.completed',
    'x-botfleet-bot-id': request.botId,
    ...(request.executionId ? { 'x-botfleet-execution-id': request.executionId } : {}),
  };
}

/** Belt and braces: messages are built without secrets, but a stray echo must not leak one. */
function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => (secret.length >= 4 ? out.split(secret).join('[redacted]') : out), text);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(invalid url)';
  }
}

/** Config that cannot work; returned as a failed attempt so it is recorded where users see it. */
class MisconfiguredWebhook extends Error {}

/**
 * One delivery attempt. Never throws for HTTP, network, login or configuration failures: they come
 * back as `ok: false` with a message. For `jwt`, a 401 invalidates the token and the request is
 * sent once more with a fresh login, within this same attempt.
 */
export async function deliverWebhook(request: DeliveryRequest, options: DeliveryOptions): Promise<DeliveryResult> {
  const started = performance.now();
  const secrets = [request.secret, request.password].filter((s): s is string => typeof s === 'string');
  const timestamp = request.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const headers = baseHeaders(request, timestamp);
  const http = { allowPrivateNetwork: options.allowPrivateNetwork, timeoutMs: options.timeoutMs, pool: options.pool };
  const post = (extra: Record<string, string> = {}): Promise<HttpPostResponse> =>
    httpPost({ url: request.url, body: request.body, headers: { ...headers, ...extra } }, http);

  let result: DeliveryResult;
  try {
    let response: HttpPostResponse;
    if (request.auth === 'hmac') {
      if (!request.secret) throw new MisconfiguredWebhook('webhook auth is hmac but no secret is configured');
      const signature = signPayload({ id: request.deliveryId, timestamp, body: request.body, secret: request.secret });
      response = await post({ 'webhook-signature': signature });
    } else if (request.auth === 'jwt') {
      response = await postWithJwt(request, options, post, (token) => secrets.push(token));
    } else {
      response = await post();
    }
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    result = {
      ok,
      statusCode: response.statusCode,
      error: ok ? null : `receiver answered HTTP ${response.statusCode}`,
      durationMs: Math.round(performance.now() - started),
      retryAfterMs: RETRY_AFTER_STATUSES.has(response.statusCode) ? parseRetryAfterMs(response.retryAfter) : null,
    };
  } catch (err) {
    if (!(err instanceof HttpPostError || err instanceof JwtLoginError || err instanceof MisconfiguredWebhook))
      throw err;
    result = {
      ok: false,
      statusCode: null,
      error: redact(err.message, secrets),
      durationMs: Math.round(performance.now() - started),
      retryAfterMs: null,
    };
  }

  const fields = {
    deliveryId: request.deliveryId,
    event: request.event ?? 'execution.completed',
    botId: request.botId,
    executionId: request.executionId,
    host: hostOf(request.url),
    ...result,
  };
  if (result.ok) options.logger?.info(fields, 'webhook delivered');
  else options.logger?.warn(fields, 'webhook delivery attempt failed');
  return result;
}

async function postWithJwt(
  request: DeliveryRequest,
  options: DeliveryOptions,
  post: (extra: Record<string, string>) => Promise<HttpPostResponse>,
  rememberToken: (token: string) => void,
): Promise<HttpPostResponse> {
  const { loginUrl, username, password } = request;
  if (!loginUrl || !username || !password) {
    throw new MisconfiguredWebhook('webhook auth is jwt but loginUrl, username or password is missing');
  }
  if (!options.tokenCache) throw new TypeError('deliverWebhook needs options.tokenCache for jwt auth');
  const cache = options.tokenCache;
  const credentials = { organizationId: request.organizationId, loginUrl, username, password };
  const loginOptions = {
    allowPrivateNetwork: options.allowPrivateNetwork,
    timeoutMs: options.timeoutMs,
    pool: options.pool,
  };

  const token = await cache.getToken(credentials, loginOptions);
  rememberToken(token);
  const first = await post({ authorization: `Bearer ${token}` });
  if (first.statusCode !== 401) return first;

  // The token may have been revoked or expired early: one fresh login, one more try, no loop.
  cache.invalidate(credentials, token);
  const renewed = await cache.getToken(credentials, loginOptions);
  rememberToken(renewed);
  return post({ authorization: `Bearer ${renewed}` });
}
