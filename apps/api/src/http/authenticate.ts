import { AppError, hashApiKey, looksLikeApiKey, permits, type Permission } from '@botfleet/core';
import { findActiveApiKeyByHash, touchApiKey, type PrismaClient } from '@botfleet/db';
import { createApiKeyCache } from './api-key-cache';
import type { Request } from 'express';
import type { AuthContext } from './route';

const TOUCH_EVERY_MS = 60_000;
const CACHE_TTL_MS = 5_000;

/**
 * Resolves the bearer key to its organization and checks the permission. `lastUsedAt` is
 * written at most once a minute per key so reads do not turn into writes.
 */
export function createAuthenticator(db: PrismaClient) {
  const lastTouched = new Map<string, number>();
  const cache = createApiKeyCache(CACHE_TTL_MS);

  async function authenticate(req: Request, needed: Permission): Promise<AuthContext> {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AppError('unauthorized', 'Missing bearer API key (Authorization: Bearer <key>)');
    const key = match[1]!;
    if (!looksLikeApiKey(key)) throw new AppError('unauthorized', 'Invalid API key');
    const hash = hashApiKey(key);
    let row = cache.get(hash);
    if (!row) {
      row = (await findActiveApiKeyByHash(db, hash)) ?? undefined;
      if (!row) throw new AppError('unauthorized', 'Invalid or revoked API key');
      cache.set(hash, row);
    }
    if (!permits(row.permission, needed)) {
      throw new AppError('forbidden', `This API key has '${row.permission}' permission; '${needed}' is required`);
    }
    const now = Date.now();
    if (now - (lastTouched.get(row.id) ?? row.lastUsedAt?.getTime() ?? 0) > TOUCH_EVERY_MS) {
      lastTouched.set(row.id, now);
      // Best effort: a failed bookkeeping write must not fail the request.
      touchApiKey(db, row.id, new Date(now)).catch(() => lastTouched.delete(row.id));
    }
    return { keyId: row.id, organizationId: row.organizationId, permission: row.permission, limits: row.limits };
  }

  return {
    authenticate,
    /** Called when a key is revoked in this process, so it stops working at once here. */
    forget: (keyId: string) => cache.evictKeyId(keyId),
  };
}

export type Authenticator = ReturnType<typeof createAuthenticator>;
export type Authenticate = Authenticator['authenticate'];
