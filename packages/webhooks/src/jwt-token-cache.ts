import { createHmac, randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { ConnectionPool } from './connection-pool';
import { JwtLoginError } from './errors';
import { httpPost } from './http-post';

export interface JwtCredentials {
  /** Tokens are never shared across organizations, even for the same login URL and username. */
  organizationId: string;
  loginUrl: string;
  username: string;
  password: string;
}

export interface JwtLoginOptions {
  allowPrivateNetwork: boolean;
  timeoutMs?: number;
  pool?: ConnectionPool;
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
  /** Which password the token was issued for (a keyed digest, never the password). */
  passwordDigest: string;
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
 * Bearer tokens per account (organization, loginUrl, username), each valid only for the password
 * it was issued for: a token is reused exactly when the same organization presents the same
 * credentials. A changed password (rotated in the manifest, or simply wrong) replaces the entry
 * with a fresh login, so no one is ever handed a token their own credentials did not earn.
 * One instance is shared by a delivery process; concurrent deliveries for the same credentials
 * share one login.
 */
export class JwtTokenCache {
  private readonly now: () => number;
  private readonly defaultTtlMs: number;
  private readonly safetyMarginMs: number;
  /** Per-process key for password digests, so a heap dump holds nothing crackable offline. */
  private readonly digestKey = randomBytes(32);
  private readonly tokens = new Map<string, CachedToken>();
  private readonly logins = new Map<string, Promise<string>>();

  constructor(options: JwtTokenCacheOptions = {}) {
    this.now = options.now ?? Date.now;
    this.defaultTtlMs = options.defaultTtlMs ?? 5 * 60_000;
    this.safetyMarginMs = options.safetyMarginMs ?? 30_000;
  }

  async getToken(credentials: JwtCredentials, options: JwtLoginOptions): Promise<string> {
    const account = accountKey(credentials);
    const passwordDigest = this.digest(credentials.password);
    const cached = this.tokens.get(account);
    if (cached && cached.passwordDigest === passwordDigest && cached.expiresAt > this.now()) return cached.token;
    // Another password's token for this account is of no use to anyone now.
    if (cached && cached.passwordDigest !== passwordDigest) this.tokens.delete(account);

    const loginKey = `${account}\n${passwordDigest}`;
    const pending = this.logins.get(loginKey);
    if (pending) return pending;
    const login = this.logIn(credentials, options, account, passwordDigest).finally(() => this.logins.delete(loginKey));
    this.logins.set(loginKey, login);
    return login;
  }

  /**
   * Drops the account's cached token after a 401. With `rejectedToken`, only if it is still the
   * cached one, so a late 401 for an old token does not throw away a token another delivery just renewed.
   */
  invalidate(credentials: Omit<JwtCredentials, 'password'>, rejectedToken?: string): void {
    const account = accountKey(credentials);
    const cached = this.tokens.get(account);
    if (cached && (rejectedToken === undefined || cached.token === rejectedToken)) this.tokens.delete(account);
  }

  /** Number of cached tokens (for tests and metrics). */
  get size(): number {
    return this.tokens.size;
  }

  private digest(password: string): string {
    return createHmac('sha256', this.digestKey).update(password, 'utf8').digest('base64url');
  }

  private async logIn(
    credentials: JwtCredentials,
    options: JwtLoginOptions,
    account: string,
    passwordDigest: string,
  ): Promise<string> {
    const host = hostOf(credentials.loginUrl);
    let reply;
    try {
      reply = await httpPost(
        {
          url: credentials.loginUrl,
          body: JSON.stringify({ username: credentials.username, password: credentials.password }),
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'user-agent': 'botfleet-webhooks/1',
          },
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
    this.tokens.set(account, { passwordDigest, token, expiresAt: this.expiryOf(token) });
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
function accountKey({ organizationId, loginUrl, username }: Omit<JwtCredentials, 'password'>): string {
  return JSON.stringify([organizationId, loginUrl, username]);
}
