import type { ApiKey } from '@botfleet/db';
import type { ApiKeyView, CreatedApiKeyView } from '../contracts/api-keys.contract';
import { ms } from './time';

// Built field by field: the key's hash must never reach a response.
export function toApiKeyView(key: ApiKey): ApiKeyView {
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
export function toCreatedApiKeyView(row: ApiKey, key: string): CreatedApiKeyView {
  return { ...toApiKeyView(row), key };
}
