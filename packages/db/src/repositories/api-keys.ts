import { apiKeyPrefix, effectiveLimit, generateApiKey, hashApiKey, newId, type Permission } from '@botfleet/core';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';

export async function createApiKey(db: Db, input: { organizationId: string; name: string; permission: Permission }) {
  const key = generateApiKey();
  const row = await db.apiKey.create({
    data: {
      id: newId('key'),
      organizationId: input.organizationId,
      name: input.name,
      permission: input.permission,
      keyHash: hashApiKey(key),
      keyPrefix: apiKeyPrefix(key),
    },
  });
  return { row, key };
}

/** The organization already holds `max` unrevoked keys: nothing was created. */
export interface KeyLimitReached {
  limitReached: true;
  max: number;
}

/**
 * Creates a key unless the organization already holds its maximum of unrevoked keys: its own
 * `maxApiKeys`, else `defaultMax` (MAX_API_KEYS_PER_ORG). The organization's row is locked for the
 * count and the insert, so concurrent creations cannot pass the cap together. Every way a tenant
 * or an operator creates a key goes through here (API and CLI); createApiKey alone is for fixtures.
 */
export async function createApiKeyWithinLimit(
  db: Db,
  input: { organizationId: string; name: string; permission: Permission },
  defaultMax: number,
): Promise<Awaited<ReturnType<typeof createApiKey>> | KeyLimitReached> {
  return inTransaction(db, async (tx) => {
    // Lock first, count in a later statement: under READ COMMITTED a statement sees what was
    // committed before it began, so a count in the locking statement could miss the key the
    // previous lock holder just created.
    const rows = await tx.$queryRaw<{ maxApiKeys: number | null }[]>`
      SELECT "maxApiKeys" FROM "Organization" WHERE id = ${input.organizationId} FOR UPDATE`;
    const row = rows[0];
    if (!row) throw new Error(`organization ${input.organizationId} does not exist`);
    const max = effectiveLimit(row.maxApiKeys, defaultMax) ?? defaultMax;
    const keys = await tx.apiKey.count({ where: { organizationId: input.organizationId, revokedAt: null } });
    if (keys >= max) return { limitReached: true, max };
    return createApiKey(tx, input);
  });
}

/** The key row as stored (hash included, revoked or not): for checks, never for API responses. */
export async function findApiKey(db: Db, keyId: string) {
  return db.apiKey.findUnique({ where: { id: keyId } });
}

/** The unrevoked key with this hash, with its organization's id and the limits the operator set it. */
export async function findActiveApiKeyByHash(db: Db, keyHash: string) {
  const row = await db.apiKey.findFirst({
    where: { keyHash, revokedAt: null },
    select: {
      id: true,
      organizationId: true,
      permission: true,
      lastUsedAt: true,
      organization: {
        select: { maxRunningExecutions: true, maxPendingExecutions: true, maxApiKeys: true, rateLimitPerMinute: true },
      },
    },
  });
  if (!row) return null;
  const { organization: limits, ...key } = row;
  return { ...key, limits };
}

export async function touchApiKey(db: Db, keyId: string, at: Date): Promise<void> {
  await db.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: at } });
}

export async function listApiKeys(db: Db, organizationId: string) {
  return db.apiKey.findMany({
    where: { organizationId, revokedAt: null },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
}

/** Revokes a key of this organization; false when there is no such (unrevoked) key. */
export async function revokeApiKey(db: Db, organizationId: string, keyId: string): Promise<boolean> {
  const { count } = await db.apiKey.updateMany({
    where: { id: keyId, organizationId, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  return count === 1;
}
