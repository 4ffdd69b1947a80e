import { ApiKeySchema, CreateApiKeySchema, CreatedApiKeySchema, listOf, notFound } from '@botfleet/core';
import { createApiKey, listApiKeys, revokeApiKey } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { toApiKeyView, toCreatedApiKeyView } from '../views/api-key.view';
import { toListView } from '../views/collection.view';
import { ApiKeyParams } from './path-params';

export function apiKeyRoutes({ db }: ApiDeps, onKeyRevoked: (keyId: string) => void): Route[] {
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api-keys',
        tag: 'API keys',
        summary: 'Create an API key in the caller’s organization (the key is shown only here)',
        permission: 'admin',
        body: CreateApiKeySchema,
        responses: { 201: { description: 'The new key', schema: CreatedApiKeySchema } },
      },
      async ({ auth, body }) => {
        const { row, key } = await createApiKey(db, { organizationId: auth.organizationId, ...body });
        return { status: 201, body: toCreatedApiKeyView(row, key) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api-keys',
        tag: 'API keys',
        summary: 'List the organization’s active API keys (no secrets)',
        permission: 'admin',
        responses: { 200: { description: 'The keys', schema: listOf(ApiKeySchema) } },
      },
      async ({ auth }) => ({
        status: 200,
        body: toListView((await listApiKeys(db, auth.organizationId)).map(toApiKeyView)),
      }),
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api-keys/:keyId',
        tag: 'API keys',
        summary: 'Revoke an API key',
        permission: 'admin',
        params: ApiKeyParams,
        responses: { 204: { description: 'Revoked' } },
      },
      async ({ auth, params }) => {
        if (!(await revokeApiKey(db, auth.organizationId, params.keyId))) throw notFound('API key');
        onKeyRevoked(params.keyId);
        return { status: 204 };
      },
    ),
  ];
}
