import {
  newId,
  ProfileOriginSchema,
  summarizeStorageState,
  type KeysetCursor,
  type ProfileOrigin,
  type StorageState,
} from '@botfleet/core';
import { z } from 'zod';
import type { Prisma } from '../generated/prisma/client';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';
import { afterCursor, NEWEST_FIRST, toPage, type Page } from './keyset';

/*
 * Browser profiles (docs/sessions.md). A profile's state is kept as numbered versions, each a
 * sealed Playwright storage state with the summary reads show; the profile row points at the
 * newest. Sealing and opening happen in the caller (it holds the SecretBox); nothing here sees
 * a value in the clear.
 */

/** How many versions of a profile are kept; older ones are deleted as new ones are saved. */
export const PROFILE_VERSIONS_KEPT = 20;

/** What saved a version. */
export type ProfileVersionSource = 'run' | 'import' | 'reset';

export interface NewProfileVersion {
  profileId: string;
  /** The storage state, sealed with SECRETS_KEY. */
  stateEnc: string;
  /** summarizeStorageState of the state before it was sealed. */
  origins: ProfileOrigin[];
  source: ProfileVersionSource;
  /** The run that saved it (source 'run'). */
  executionId?: string | null;
}

/**
 * Saves a new version as the profile's latest and drops versions past PROFILE_VERSIONS_KEPT, in
 * the caller's transaction when there is one (a run saves in the transaction that ends it).
 * Returns the new version number, or null when the profile is gone.
 */
export async function saveProfileVersion(db: Db, input: NewProfileVersion): Promise<number | null> {
  const save = async (tx: Db) => {
    const rows = await tx.$queryRaw<{ version: number }[]>`
      UPDATE "Profile" SET version = version + 1, "lastExecutionId" = ${input.executionId ?? null}, "updatedAt" = now()
       WHERE id = ${input.profileId}
       RETURNING version`;
    const version = rows[0]?.version;
    if (version === undefined) return null;
    await tx.profileVersion.create({
      data: {
        profileId: input.profileId,
        version,
        stateEnc: input.stateEnc,
        origins: input.origins as unknown as Prisma.InputJsonArray,
        source: input.source,
        executionId: input.executionId ?? null,
      },
    });
    await tx.profileVersion.deleteMany({
      where: { profileId: input.profileId, version: { lte: version - PROFILE_VERSIONS_KEPT } },
    });
    return version;
  };
  return inTransaction(db, save);
}

/** The newest sealed state of a profile, or null when it was never saved (or is gone). */
export async function findLatestProfileState(
  db: Db,
  profileId: string,
): Promise<{ version: number; stateEnc: string } | null> {
  const rows = await db.$queryRaw<{ version: number; stateEnc: string }[]>`
    SELECT v.version, v."stateEnc" FROM "Profile" p
      JOIN "ProfileVersion" v ON v."profileId" = p.id AND v.version = p.version
     WHERE p.id = ${profileId}`;
  return rows[0] ?? null;
}

/** The summary of a state as stored with its version. */
export const originsOf = (state: StorageState): ProfileOrigin[] => summarizeStorageState(state);

/** A new profile's id. */
export const newProfileId = (): string => newId('prf');

/** The run whose turn on the profile comes next (the oldest pending one), if any waits. */
export async function findNextProfileRun(db: Db, profileId: string): Promise<string | null> {
  const next = await db.execution.findFirst({
    where: { profileId, status: 'pending' },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: { id: true },
  });
  return next?.id ?? null;
}

/* CRUD of the API (apps/api/src/routes/profiles.router.ts). */

/** A profile with the summary of its latest version (none yet: no origins). */
export interface ProfileWithOrigins {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  version: number;
  lastExecutionId: string | null;
  createdAt: Date;
  updatedAt: Date;
  origins: ProfileOrigin[];
}

// Versions only grow and the oldest are the ones dropped, so the newest is the latest.
const WITH_LATEST_ORIGINS = {
  versions: { orderBy: { version: 'desc' as const }, take: 1, select: { origins: true } },
};

type ProfileRowWithLatest = Omit<ProfileWithOrigins, 'origins'> & { versions: { origins: unknown }[] };

function withOrigins({ versions, ...profile }: ProfileRowWithLatest): ProfileWithOrigins {
  return { ...profile, origins: z.array(ProfileOriginSchema).parse(versions[0]?.origins ?? []) };
}

/** Creates an empty profile (version 0); a name the organization already uses is a unique violation. */
export async function createProfile(
  db: Db,
  organizationId: string,
  input: { name: string; description?: string | null },
): Promise<ProfileWithOrigins> {
  const row = await db.profile.create({
    data: { id: newProfileId(), organizationId, name: input.name, description: input.description ?? null },
  });
  return { ...row, origins: [] };
}

export async function listProfiles(
  db: Db,
  organizationId: string,
  page: { limit: number; cursor?: KeysetCursor },
): Promise<Page<ProfileWithOrigins>> {
  const rows = await db.profile.findMany({
    where: { organizationId, ...afterCursor(page.cursor) },
    orderBy: NEWEST_FIRST,
    take: page.limit + 1,
    include: WITH_LATEST_ORIGINS,
  });
  const { items, nextCursor } = toPage(rows, page.limit);
  return { items: items.map(withOrigins), nextCursor };
}

/** The profile of this organization, or null. */
export async function findProfile(
  db: Db,
  organizationId: string,
  profileId: string,
): Promise<ProfileWithOrigins | null> {
  const row = await db.profile.findFirst({ where: { id: profileId, organizationId }, include: WITH_LATEST_ORIGINS });
  return row ? withOrigins(row) : null;
}

/**
 * Whether the profile is this organization's, holding it until the caller's transaction ends: a
 * manifest that names it checks here, so a delete cannot slip between the check and the save.
 */
export async function holdProfileOfOrganization(db: Db, organizationId: string, profileId: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Profile" WHERE id = ${profileId} AND "organizationId" = ${organizationId} FOR KEY SHARE`;
  return rows.length === 1;
}

/** Renames or re-describes a profile of this organization; null when there is none. */
export async function updateProfile(
  db: Db,
  organizationId: string,
  profileId: string,
  patch: { name?: string; description?: string | null },
): Promise<ProfileWithOrigins | null> {
  const { count } = await db.profile.updateMany({ where: { id: profileId, organizationId }, data: patch });
  return count === 1 ? findProfile(db, organizationId, profileId) : null;
}

/** Why a profile cannot be deleted: the bots whose manifest names it, and its runs not yet ended. */
export interface ProfileInUse {
  botIds: string[];
  activeExecutions: number;
}

/**
 * Deletes a profile of this organization with its versions, unless a bot's manifest names it or
 * a run of it is pending or running (that run starts from, or saves to, it). The row is locked
 * first, so a manifest naming it (holdProfileOfOrganization) or its check here waits for the other.
 */
export async function deleteProfile(
  db: Db,
  organizationId: string,
  profileId: string,
): Promise<'deleted' | 'not-found' | ProfileInUse> {
  return inTransaction(db, async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`
      SELECT id FROM "Profile" WHERE id = ${profileId} AND "organizationId" = ${organizationId} FOR UPDATE`;
    if (locked.length === 0) return 'not-found';
    const bots = await tx.manifest.findMany({
      where: { sessionProfileId: profileId },
      select: { botId: true },
      orderBy: { botId: 'asc' },
    });
    const activeExecutions = await tx.execution.count({
      where: { profileId, status: { in: ['pending', 'running'] } },
    });
    if (bots.length > 0 || activeExecutions > 0) return { botIds: bots.map((b) => b.botId), activeExecutions };
    await tx.profile.delete({ where: { id: profileId } });
    return 'deleted';
  });
}

/** One kept version of a profile, without its state. */
export interface ProfileVersionSummary {
  version: number;
  source: ProfileVersionSource;
  executionId: string | null;
  origins: ProfileOrigin[];
  createdAt: Date;
}

/** The kept versions of a profile (at most PROFILE_VERSIONS_KEPT), newest first. */
export async function listProfileVersions(db: Db, profileId: string): Promise<ProfileVersionSummary[]> {
  const rows = await db.profileVersion.findMany({
    where: { profileId },
    orderBy: { version: 'desc' },
    select: { version: true, source: true, executionId: true, origins: true, createdAt: true },
  });
  return rows.map((row) => ({
    ...row,
    source: row.source as ProfileVersionSource,
    origins: z.array(ProfileOriginSchema).parse(row.origins),
  }));
}
