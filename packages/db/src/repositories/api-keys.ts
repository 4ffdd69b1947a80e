import { apiKeyPrefix, generateApiKey, hashApiKey, newId, type Permission } from '@botfleet/core';
import type { Db } from './db-handle';

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

/** The key row as stored (hash included, revoked or not): for checks, never for API responses. */
export async function findApiKey(db: Db, keyId: string) {
  return db.apiKey.findUnique({ where: { id: keyId } });
}

/** The unrevoked key with this hash, with its organization's id. */
export async function findActiveApiKeyByHash(db: Db, keyHash: string) {
  return db.apiKey.findFirst({
    where: { keyHash, revokedAt: null },
    select: { id: true, organizationId: true, permission: true, lastUsedAt: true },
  });
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
