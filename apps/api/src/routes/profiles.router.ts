import { AppError, EMPTY_STORAGE_STATE, MAX_STORAGE_STATE_BYTES, notFound, StorageStateSchema } from '@botfleet/core';
import {
  createProfile,
  deleteProfile,
  findProfile,
  isUniqueViolation,
  listProfiles,
  listProfileVersions,
  updateProfile,
  type ProfileInUse,
} from '@botfleet/db';
import type { ApiDeps } from '../deps';
import { defineRoute, type Route } from '../http/route';
import { exportProfileState, saveProfileState } from '../services/profile-state';
import { toListView, toPageView } from '../views/collection.view';
import { toProfileVersionView, toProfileView } from '../views/profile.view';
import { listOf, pageOf, PaginationQuerySchema } from '../contracts/common.contract';
import { ProfileParams } from '../contracts/path-params';
import {
  CreateProfileSchema,
  ProfileSchema,
  ProfileVersionSchema,
  UpdateProfileSchema,
} from '../contracts/profiles.contract';
import { profileOfCaller } from './resource-loaders';

/**
 * An imported state's body may be larger than the state it holds (an indented file, defaults
 * left out), so the body limit leaves room; the state as stored is bounded by saveProfileState.
 */
const STATE_BODY_LIMIT_BYTES = 2 * MAX_STORAGE_STATE_BYTES;

const duplicateName = (name: string) =>
  new AppError('conflict', `A profile named '${name}' already exists in this organization`, [
    { path: 'name', message: 'is already used by another profile' },
  ]);

/** Runs `write`, answering a name the organization already uses as 409 rather than the generic conflict. */
async function uniqueName<T>(name: string | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (name !== undefined && isUniqueViolation(err)) throw duplicateName(name);
    throw err;
  }
}

function inUse({ botIds, activeExecutions }: ProfileInUse): AppError {
  const reasons: string[] = [];
  if (botIds.length > 0) {
    const shown = botIds.slice(0, 5).join(', ') + (botIds.length > 5 ? ` and ${botIds.length - 5} more` : '');
    reasons.push(
      `the manifest of ${botIds.length === 1 ? 'bot' : 'bots'} ${shown} names it (set "session": null there)`,
    );
  }
  if (activeExecutions > 0) {
    reasons.push(
      `${activeExecutions} ${activeExecutions === 1 ? 'run of it is' : 'runs of it are'} pending or running`,
    );
  }
  return new AppError('conflict', `The profile is in use: ${reasons.join('; ')}`, { botIds, activeExecutions });
}

export function profileRoutes({ db, secretBox }: ApiDeps): Route[] {
  return [
    defineRoute(
      {
        method: 'get',
        path: '/profiles',
        operationId: 'listProfiles',
        tag: 'Profiles',
        summary: 'List the organization’s browser profiles, newest first',
        permission: 'read',
        query: PaginationQuerySchema,
        responses: { 200: { description: 'A page of profiles', schema: pageOf(ProfileSchema) } },
      },
      async ({ auth, query }) => {
        const page = await listProfiles(db, auth.organizationId, { limit: query.limit, cursor: query.cursor });
        return { status: 200, body: toPageView(page, toProfileView) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/profiles',
        operationId: 'createProfile',
        tag: 'Profiles',
        summary: 'Create an empty browser profile',
        description:
          'Name it in a bot’s manifest (`session.profileId`): its runs then start from the profile’s latest state ' +
          'and save theirs back. Import a state you logged in with yourself with `PUT /profiles/{profileId}/state`.',
        permission: 'write',
        body: CreateProfileSchema,
        responses: {
          201: { description: 'The new profile', schema: ProfileSchema, headers: { Location: 'Path of the profile' } },
          409: { description: 'The organization already has a profile of this name' },
        },
      },
      async ({ auth, body }) => {
        const profile = await uniqueName(body.name, () => createProfile(db, auth.organizationId, body));
        return {
          status: 201,
          body: toProfileView(profile),
          headers: { Location: `/api/v1/profiles/${profile.id}` },
        };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/profiles/:profileId',
        operationId: 'getProfile',
        tag: 'Profiles',
        summary: 'Get a profile: its origins with cookie and storage counts (never values)',
        permission: 'read',
        params: ProfileParams,
        load: { profile: profileOfCaller },
        responses: { 200: { description: 'The profile', schema: ProfileSchema } },
      },
      async ({ profile }) => ({ status: 200, body: toProfileView(profile) }),
    ),
    defineRoute(
      {
        method: 'patch',
        path: '/profiles/:profileId',
        operationId: 'updateProfile',
        tag: 'Profiles',
        summary: 'Rename or re-describe a profile',
        permission: 'write',
        params: ProfileParams,
        body: UpdateProfileSchema,
        responses: {
          200: { description: 'The updated profile', schema: ProfileSchema },
          409: { description: 'The organization already has a profile of this name' },
        },
      },
      async ({ auth, params, body }) => {
        const profile = await uniqueName(body.name, () =>
          updateProfile(db, auth.organizationId, params.profileId, body),
        );
        if (!profile) throw notFound('Profile');
        return { status: 200, body: toProfileView(profile) };
      },
    ),
    defineRoute(
      {
        method: 'delete',
        path: '/profiles/:profileId',
        operationId: 'deleteProfile',
        tag: 'Profiles',
        summary: 'Delete a profile with every saved state',
        description:
          'Refused (409) while a bot’s manifest names it or a run of it is pending or running; `details` gives ' +
          '`botIds` and `activeExecutions`.',
        permission: 'write',
        params: ProfileParams,
        responses: {
          204: { description: 'Deleted' },
          409: { description: 'A bot’s manifest names the profile, or a run of it is pending or running' },
        },
      },
      async ({ auth, params }) => {
        const deleted = await deleteProfile(db, auth.organizationId, params.profileId);
        if (deleted === 'not-found') throw notFound('Profile');
        if (deleted !== 'deleted') throw inUse(deleted);
        return { status: 204 };
      },
    ),
    defineRoute(
      {
        method: 'get',
        path: '/profiles/:profileId/versions',
        operationId: 'listProfileVersions',
        tag: 'Profiles',
        summary: 'The profile’s kept states, newest first (origins and counts, never values)',
        permission: 'read',
        params: ProfileParams,
        load: { profile: profileOfCaller },
        responses: { 200: { description: 'The kept versions', schema: listOf(ProfileVersionSchema) } },
      },
      async ({ profile }) => ({
        status: 200,
        body: toListView((await listProfileVersions(db, profile.id)).map(toProfileVersionView)),
      }),
    ),
    defineRoute(
      {
        method: 'get',
        path: '/profiles/:profileId/state',
        operationId: 'exportProfileState',
        tag: 'Profiles',
        summary: 'Export the profile’s latest state as Playwright storage-state JSON (cookie and storage values)',
        description:
          'What `browserContext.storageState({ indexedDB: true })` returns; `{ "cookies": [], "origins": [] }` ' +
          'while nothing was saved. It holds live sessions: only an admin key may read it.',
        permission: 'admin',
        params: ProfileParams,
        load: { profile: profileOfCaller },
        responses: { 200: { description: 'The storage state', schema: StorageStateSchema } },
      },
      async ({ profile }) => ({ status: 200, body: await exportProfileState(db, secretBox, profile.id) }),
    ),
    defineRoute(
      {
        method: 'put',
        path: '/profiles/:profileId/state',
        operationId: 'importProfileState',
        tag: 'Profiles',
        summary: 'Import a Playwright storage state as the profile’s next version',
        description:
          'Log in with your own browser, save `browserContext.storageState({ indexedDB: true })` and send it here: ' +
          `runs of the profile start from it. At most ${MAX_STORAGE_STATE_BYTES} bytes as JSON (413 past it).`,
        permission: 'admin',
        params: ProfileParams,
        body: StorageStateSchema,
        bodyLimitBytes: STATE_BODY_LIMIT_BYTES,
        load: { profile: profileOfCaller },
        responses: { 200: { description: 'The profile with its new version', schema: ProfileSchema } },
      },
      async ({ auth, profile, body }) => {
        if (!(await saveProfileState(db, secretBox, profile.id, body, 'import'))) throw notFound('Profile');
        return { status: 200, body: toProfileView(await reloaded(auth.organizationId, profile.id)) };
      },
    ),
    defineRoute(
      {
        method: 'post',
        path: '/profiles/:profileId/reset',
        operationId: 'resetProfile',
        tag: 'Profiles',
        summary: 'Empty the profile: its next version has no cookies and no storage',
        permission: 'write',
        params: ProfileParams,
        load: { profile: profileOfCaller },
        responses: { 200: { description: 'The profile with its new, empty version', schema: ProfileSchema } },
      },
      async ({ auth, profile }) => {
        if (!(await saveProfileState(db, secretBox, profile.id, EMPTY_STORAGE_STATE, 'reset'))) {
          throw notFound('Profile');
        }
        return { status: 200, body: toProfileView(await reloaded(auth.organizationId, profile.id)) };
      },
    ),
  ];

  /** The profile after a save; deleted in between answers as if it never was. */
  async function reloaded(organizationId: string, profileId: string) {
    const profile = await findProfile(db, organizationId, profileId);
    if (!profile) throw notFound('Profile');
    return profile;
  }
}
