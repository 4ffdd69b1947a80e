import { newId, type CredentialFields, type KeysetCursor } from '@botfleet/core';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';
import { afterCursor, NEWEST_FIRST, toPage } from './keyset';

/*
 * Credentials for logins (docs/sessions.md). The password and the TOTP parameters are stored
 * sealed with SECRETS_KEY by the caller (it holds the SecretBox) and never returned by the API;
 * only the worker opens them, when a step fills one.
 */

/** A credential as a run needs it: the sealed fields and its origins, if it belongs to this organization. */
export async function findCredentialForRun(db: Db, organizationId: string, credentialId: string) {
  return db.credential.findFirst({
    where: { id: credentialId, organizationId },
    select: { id: true, username: true, passwordEnc: true, totpEnc: true, origins: true },
  });
}

export type { Credential } from '../generated/prisma/client';

/** A credential's fields as stored: the password and TOTP parameters arrive sealed. */
export interface CredentialInput {
  name: string;
  username: string | null;
  passwordEnc: string | null;
  totpEnc: string | null;
  /** Normalised origins its values may be filled on (core's normalizeCredentialOrigin). */
  origins: string[];
}

export async function createCredential(db: Db, organizationId: string, input: CredentialInput) {
  return db.credential.create({ data: { id: newId('crd'), organizationId, ...input } });
}

export async function listCredentials(db: Db, organizationId: string, page: { limit: number; cursor?: KeysetCursor }) {
  const rows = await db.credential.findMany({
    where: { organizationId, ...afterCursor(page.cursor) },
    orderBy: NEWEST_FIRST,
    take: page.limit + 1,
  });
  return toPage(rows, page.limit);
}

/** The credential row, sealed fields included: for the API's views, which show only whether they are set. */
export async function findCredential(db: Db, organizationId: string, credentialId: string) {
  return db.credential.findFirst({ where: { id: credentialId, organizationId } });
}

/** Applies a patch (undefined: keep, null: remove) to a credential of this organization; null when there is none. */
export async function updateCredential(
  db: Db,
  organizationId: string,
  credentialId: string,
  patch: Partial<CredentialInput>,
) {
  const { count } = await db.credential.updateMany({ where: { id: credentialId, organizationId }, data: patch });
  return count === 1 ? findCredential(db, organizationId, credentialId) : null;
}

/** Which fields each of these credentials of the organization can give; ids it does not have are absent. */
export async function findCredentialFields(
  db: Db,
  organizationId: string,
  credentialIds: string[],
): Promise<Map<string, CredentialFields>> {
  if (credentialIds.length === 0) return new Map();
  const rows = await db.credential.findMany({
    where: { organizationId, id: { in: credentialIds } },
    select: { id: true, username: true, passwordEnc: true, totpEnc: true },
  });
  return new Map(
    rows.map((row) => [
      row.id,
      { username: row.username !== null, password: row.passwordEnc !== null, totp: row.totpEnc !== null },
    ]),
  );
}

/** The ids of the organization's bots whose recorded steps fill from the credential. */
export async function findBotsUsingCredential(db: Db, organizationId: string, credentialId: string) {
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT DISTINCT b.id FROM "RecordedStep" s
      JOIN "Bot" b ON b.id = s."botId"
     WHERE b."organizationId" = ${organizationId}
       AND s.definition -> 'value' ->> 'credential' = ${credentialId}
     ORDER BY b.id`;
  return rows.map((row) => row.id);
}

/**
 * Deletes a credential unless recorded steps still fill from it, in one transaction so a check
 * and a delete cannot straddle another request's read of it. `deleted: false` with no bots: there
 * was no such credential.
 */
export async function deleteCredentialUnlessUsed(
  db: Db,
  organizationId: string,
  credentialId: string,
): Promise<{ deleted: boolean; usedBy: string[] }> {
  return inTransaction(db, async (tx) => {
    const usedBy = await findBotsUsingCredential(tx, organizationId, credentialId);
    if (usedBy.length > 0) return { deleted: false, usedBy };
    const { count } = await tx.credential.deleteMany({ where: { id: credentialId, organizationId } });
    return { deleted: count === 1, usedBy };
  });
}
