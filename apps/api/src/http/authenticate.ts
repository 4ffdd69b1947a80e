import { AppError, looksLikeApiKey, permits, type Permission } from '@botfleet/core';
import { findActiveApiKey, touchApiKey, type PrismaClient } from '@botfleet/db';
import type { Request } from 'express';
import type { AuthContext } from './route';

const TOUCH_EVERY_MS = 60_000;

/**
 * Resolves the bearer key to its organization and checks the permission. `lastUsedAt` is
 * written at most once a minute per key so reads do not turn into writes.
 */
export function createAuthenticator(db: PrismaClient) {
  const lastTouched = new Map<string, number>();

  return async function authenticate(req: Request, needed: Permission): Promise<AuthContext> {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new AppError('unauthorized', 'Missing bearer API key (Authorization: Bearer <key>)');
    const key = match[1]!;
    if (!looksLikeApiKey(key)) throw new AppError('unauthorized', 'Invalid API key');
    const row = await findActiveApiKey(db, key);
    if (!row) throw new AppError('unauthorized', 'Invalid or revoked API key');
    if (!permits(row.permission, needed)) {
      throw new AppError('forbidden', `This API key has '${row.permission}' permission; '${needed}' is required`);
    }
    const now = Date.now();
    if (now - (lastTouched.get(row.id) ?? row.lastUsedAt?.getTime() ?? 0) > TOUCH_EVERY_MS) {
      lastTouched.set(row.id, now);
      // Best effort: a failed bookkeeping write must not fail the request.
      touchApiKey(db, row.id, new Date(now)).catch(() => lastTouched.delete(row.id));
    }
    return { keyId: row.id, organizationId: row.organizationId, permission: row.permission };
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
