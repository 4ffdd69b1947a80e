import type { OrganizationLimitOverrides, Permission } from '@botfleet/core';

export interface CachedKey {
  id: string;
  organizationId: string;
  permission: Permission;
  lastUsedAt: Date | null;
  /** The organization's own limits: a change by the operator reaches this process within the TTL. */
  limits: OrganizationLimitOverrides;
}

/**
 * A short-lived, bounded cache of key lookups (by key hash), so an authenticated read costs one
 * query instead of two. Revocation in this process evicts at once; in other API processes a
 * revoked key keeps working for at most `ttlMs`.
 */
export function createApiKeyCache(ttlMs: number, maxEntries = 10_000) {
  // Only known keys are cached: random unknown keys must not be able to evict them.
  const entries = new Map<string, { key: CachedKey; expires: number }>();
  return {
    get(hash: string): CachedKey | undefined {
      const entry = entries.get(hash);
      if (!entry) return undefined;
      if (entry.expires < Date.now()) {
        entries.delete(hash);
        return undefined;
      }
      return entry.key;
    },
    set(hash: string, key: CachedKey): void {
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(hash, { key, expires: Date.now() + ttlMs });
    },
    evictKeyId(keyId: string): void {
      for (const [hash, entry] of entries) if (entry.key.id === keyId) entries.delete(hash);
    },
  };
}

export type ApiKeyCache = ReturnType<typeof createApiKeyCache>;
