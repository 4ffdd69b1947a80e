import { AppError, notFound } from '@botfleet/core';
import { createApiKeyWithinLimit, findApiKey, listApiKeys, revokeApiKey } from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { limitDefaultsOf } from '../services/organization-limits';
import { defineRoute, type Route } from '../http/route';
import { toApiKeyView, toCreatedApiKeyView } from '../views/api-key.view';
import { toListView } from '../views/collection.view';
import { ApiKeySchema, CreateApiKeySchema, CreatedApiKeySchema } from '../contracts/api-keys.contract';
import { listOf } from '../contracts/common.contract';
import { ApiKeyParams } from '../contracts/path-params';

export function apiKeyRoutes({ db, settings }: ApiDeps, onKeyRevoked: (keyId: string) => void): Route[] {
  const defaultMaxKeys = limitDefaultsOf(settings).maxApiKeys ?? Number.MAX_SAFE_INTEGER;
  return [
    defineRoute(
      {
        method: 'post',
        path: '/api-keys',
        operationId: 'createApiKey',
        tag: 'API keys',
        summary: 'Create an API key in the caller’s organization (the key is shown only here)',
        permission: 'admin',
        body: CreateApiKeySchema,
        responses: {
          201: { description: 'The new key', schema: CreatedApiKeySchema },
          409: {
            description: 'The organization holds as many API keys as its limit allows (`limit_reached`)',
            code: 'limit_reached',
          },
        },
      },
      async ({ auth, body }) => {
        const created = await createApiKeyWithinLimit(
          db,
          { organizationId: auth.organizationId, ...body },
          defaultMaxKeys,
        );
        if ('limitReached' in created) {
          throw new AppError(
            'limit_reached',
            `This organization already has ${created.max} API keys, its maximum; revoke one to create another`,
            { limit: 'maxApiKeys', max: created.max },
          );
        }
        return { status: 201, body: toCreatedApiKeyView(created.row, created.key) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/api-keys',
        operationId: 'listApiKeys',
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
        method: 'get',
        path: '/api-keys/current',
        operationId: 'getCurrentApiKey',
        tag: 'API keys',
        summary: 'The key making this request: its name and permission (no secret)',
        description:
          'Lets a client (the console, a script) learn what its key may do before offering an action, ' +
          'instead of finding out from a 403.',
        permission: 'read',
        responses: { 200: { description: 'The caller’s key', schema: ApiKeySchema } },
      },
      async ({ auth }) => {
        const key = await findApiKey(db, auth.keyId);
        // Revoked between authentication and this query: answer as the authenticator would have.
        if (!key || key.revokedAt) throw notFound('API key');
        return { status: 200, body: toApiKeyView(key) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/api-keys/:keyId',
        operationId: 'revokeApiKey',
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
