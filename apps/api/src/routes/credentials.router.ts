import { AppError, notFound, type Permission } from '@botfleet/core';
import {
  createCredential,
  deleteCredentialUnlessUsed,
  isUniqueViolation,
  listCredentials,
  updateCredential,
  type Credential,
} from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { duplicateCredentialName, sealCredentialPatch, sealNewCredential, totpViewOf } from '../services/credentials';
import { toPageView } from '../views/collection.view';
import { toCredentialView } from '../views/credential.view';
import { pageOf, PaginationQuerySchema } from '../contracts/common.contract';
import { CreateCredentialSchema, CredentialSchema, UpdateCredentialSchema } from '../contracts/credentials.contract';
import { CredentialParams } from '../contracts/path-params';
import { credentialOfCaller } from './resource-loaders';

export function credentialRoutes({ db, secretBox, settings }: ApiDeps): Route[] {
  const view = (credential: Credential) => toCredentialView(credential, totpViewOf(secretBox, credential.totpEnc));
  /** The unique index on (organization, name) speaks for a taken name, whoever wrote first. */
  const namedOnce = async <T>(name: string | undefined, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (error) {
      if (name !== undefined && isUniqueViolation(error)) throw duplicateCredentialName(name);
      throw error;
    }
  };
  const writeContext = (permission: Permission) => ({
    permission,
    allowPrivateNetwork: settings.allowPrivateNetwork ?? false,
  });
  const duplicateName = {
    description: 'The organization has a credential of that name (`conflict`)',
    code: 'conflict',
  } as const;
  return [
    defineRoute(
      {
        method: 'post',
        path: '/credentials',
        operationId: 'createCredential',
        tag: 'Credentials',
        summary: 'Create a credential (its password and TOTP secret are write-only)',
        description:
          '`fill` steps take a value from it with `"value": { "credential": "crd_...", "field": ' +
          '"username" | "password" | "totp" }`. The TOTP comes from a base32 `totpSecret` (SHA-1, 6 digits, ' +
          '30 s) or an `otpauthUri`, not both. Its values are filled only into frames at one of its `origins`.',
        permission: 'write',
        body: CreateCredentialSchema,
        responses: {
          201: { description: 'The credential, without its secrets', schema: CredentialSchema },
          409: duplicateName,
        },
      },
      async ({ auth, body }) => {
        const input = sealNewCredential(secretBox, body, writeContext(auth.permission));
        const created = await namedOnce(body.name, () => createCredential(db, auth.organizationId, input));
        return { status: 201, body: view(created) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/credentials',
        operationId: 'listCredentials',
        tag: 'Credentials',
        summary: 'List the organization’s credentials, newest first (no secrets)',
        permission: 'read',
        query: PaginationQuerySchema,
        responses: { 200: { description: 'A page of credentials', schema: pageOf(CredentialSchema) } },
      },
      async ({ auth, query }) => {
        const page = await listCredentials(db, auth.organizationId, { limit: query.limit, cursor: query.cursor });
        return { status: 200, body: toPageView(page, view) };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/credentials/:credentialId',
        operationId: 'getCredential',
        tag: 'Credentials',
        summary: 'Get a credential (no secrets)',
        permission: 'read',
        params: CredentialParams,
        load: { credential: credentialOfCaller },
        responses: { 200: { description: 'The credential', schema: CredentialSchema } },
      },
      async ({ credential }) => ({ status: 200, body: view(credential) }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/credentials/:credentialId',
        operationId: 'updateCredential',
        tag: 'Credentials',
        summary: 'Rename a credential, rotate its username, password or TOTP (null removes one), or change its origins',
        description: 'Changing `origins` needs an admin key (`403 forbidden` for a write key).',
        permission: 'write',
        params: CredentialParams,
        body: UpdateCredentialSchema,
        load: { credential: credentialOfCaller },
        responses: {
          200: { description: 'The updated credential, without its secrets', schema: CredentialSchema },
          403: { description: 'A write key tried to change `origins` (`forbidden`)', code: 'forbidden' },
          409: duplicateName,
        },
      },
      async ({ auth, credential, body }) => {
        const patch = sealCredentialPatch(secretBox, body, writeContext(auth.permission));
        const updated = await namedOnce(body.name, () =>
          updateCredential(db, auth.organizationId, credential.id, patch),
        );
        // Deleted since the loader read it: as if it never was.
        if (!updated) throw notFound('Credential');
        return { status: 200, body: view(updated) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/credentials/:credentialId',
        operationId: 'deleteCredential',
        tag: 'Credentials',
        summary: 'Delete a credential no bot’s steps fill from',
        permission: 'write',
        params: CredentialParams,
        responses: {
          204: { description: 'Deleted' },
          409: {
            description: 'Steps of these bots fill from it (`conflict`, `details.bots`); change them first',
            code: 'conflict',
          },
        },
      },
      async ({ auth, params }) => {
        const { deleted, usedBy } = await deleteCredentialUnlessUsed(db, auth.organizationId, params.credentialId);
        if (usedBy.length > 0) {
          throw new AppError(
            'conflict',
            `Credential is used by the steps of ${usedBy.length === 1 ? 'bot' : 'bots'} ${usedBy.join(', ')}; ` +
              'change those steps first',
            { bots: usedBy },
          );
        }
        if (!deleted) throw notFound('Credential');
        return { status: 204 };
      },
    ),
  ];
}
