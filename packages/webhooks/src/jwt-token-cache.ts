import jwt from 'jsonwebtoken';
import { JwtLoginError } from './errors';
import { httpPost } from './http-post';

export interface JwtCredentials {
  loginUrl: string;
  username: string;
  password: string;
}

export interface JwtLoginOptions {
  allowPrivateNetwork: boolean;
  timeoutMs?: number;
}

export interface JwtTokenCacheOptions {
  /** Milliseconds since the epoch; injectable so tests can move past a token's `exp`. */
  now?: () => number;
  /** How long to keep a token whose `exp` cannot be read (opaque or exp-less). */
  defaultTtlMs?: number;
  /** Renew this long before `exp`, so a token does not expire on its way to the receiver. */
  safetyMarginMs?: number;
}

/** The reply fields a token is read from, in order of preference (api-contract). */
const TOKEN_FIELDS = ['token', 'access_token', 'accessToken', 'jwt'] as const;

interface CachedToken {
  token: string;
  expiresAt: number;
}

function readToken(replyBody: string): string | null {
  let reply: unknown;
  try {
    reply = JSON.parse(replyBody);
  } catch {
    return null;
  }
  if (reply === null || typeof reply !== 'object') return null;
  for (const field of TOKEN_FIELDS) {
    const value: unknown = (reply as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return null;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

/**
 * Bearer tokens per (loginUrl, username), reused until shortly before their `exp`. One instance
 * is shared by a delivery process; concurrent deliveries for the same account share one login.
 */
export class JwtTokenCache {
  private readonly now: () => number;
  private readonly defaultTtlMs: number;
  private readonly safetyMarginMs: number;
  private readonly tokens = new Map<string, CachedToken>();
  private readonly logins = new Map<string, Promise<string>>();

  constructor(options: JwtTokenCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.defaultTtlMs = options.defaultTtlMs ?? 5 * 60_000;
    this.safetyMarginMs = options.safetyMarginMs ?? 30_000;
  }

  async getToken(credentials: JwtCredentials, options: JwtLoginOptions): Promise<string> {
    const key = cacheKey(credentials.loginUrl, credentials.username);
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.token;

    const pending = this.logins.get(key);
    if (pending) return pending;
    const login = this.logIn(credentials, options).finally(() => this.logins.delete(key));
    this.logins.set(key, login);
    return login;
  }

  /**
   * Drops the cached token after a 401. With `rejectedToken`, only if it is still the cached one,
   * so a late 401 for an old token does not throw away a token another delivery just renewed.
   */
  invalidate(loginUrl: string, username: string, rejectedToken?: string): void {
    const key = cacheKey(loginUrl, username);
    const cached = this.tokens.get(key);
    if (cached && (rejectedToken === undefined || cached.token === rejectedToken)) this.tokens.delete(key);
  }

  private async logIn(credentials: JwtCredentials, options: JwtLoginOptions): Promise<string> {
    const host = hostOf(credentials.loginUrl);
    let reply;
    try {
      reply = await httpPost(
        {
          url: credentials.loginUrl,
          body: JSON.stringify({ username: credentials.username, password: credentials.password }),
          headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'botfleet-webhooks/1' },
        },
        options,
      );
    } catch (err) {
      throw new JwtLoginError(`login at ${host} failed: ${(err as Error).message}`, null, { cause: err });
    }
    // The reply body stays out of messages: a login endpoint may echo the credentials.
    if (reply.statusCode < 200 || reply.statusCode >= 300) {
      throw new JwtLoginError(`login at ${host} answered HTTP ${reply.statusCode}`, reply.statusCode);
    }
    const token = readToken(reply.body);
    if (!token) {
      throw new JwtLoginError(
        `login at ${host} answered HTTP ${reply.statusCode} without a token (expected one of ${TOKEN_FIELDS.join(', ')})`,
        reply.statusCode,
      );
    }
    this.tokens.set(cacheKey(credentials.loginUrl, credentials.username), { token, expiresAt: this.expiryOf(token) });
    return token;
  }

  private expiryOf(token: string): number {
    // decode, not verify: we do not hold the issuer's key, and the receiver is the one who checks.
    const claims = jwt.decode(token, { json: true });
    if (claims && typeof claims.exp === 'number') return claims.exp * 1000 - this.safetyMarginMs;
    return this.now() + this.defaultTtlMs;
  }
}

// JSON keeps ("a|b", "c") and ("a", "b|c") apart, which a plain separator would not.
function cacheKey(loginUrl: string, username: string): string {
  return JSON.stringify([loginUrl, username]);
}
