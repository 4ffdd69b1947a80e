import type { ApiKeySchema, CreatedApiKeySchema } from '@botfleet/core';
import type { ApiKey } from '@botfleet/db';
import type { z } from 'zod';
import { ms } from './time';

// Built field by field: the key's hash must never reach a response.
export function toApiKeyView(key: ApiKey): z.infer<typeof ApiKeySchema> {
  return {
    id: key.id,
    name: key.name,
    permission: key.permission,
    keyPrefix: key.keyPrefix,
    createdAt: key.createdAt.getTime(),
    lastUsedAt: ms(key.lastUsedAt),
  };
}

/** A key just created: the only answer that carries the key itself. */
export function toCreatedApiKeyView(row: ApiKey, key: string): z.infer<typeof CreatedApiKeySchema> {
  return { ...toApiKeyView(row), key };
}
