import {
  MAX_STORAGE_STATE_BYTES,
  persistsAfter,
  sealStorageState,
  StorageStateTooLarge,
  totpCode,
  type CredentialValue,
  type RunOutcome,
  type SecretBox,
  type SessionPersist,
  type StorageState,
  type TotpSettings,
} from '@botfleet/core';
import {
  findCredentialForRun,
  findLatestProfileState,
  type ExecutionAttemptEnd,
  type PrismaClient,
} from '@botfleet/db';
import type { CredentialSource, RunExecutionOptions } from '@botfleet/runner';

/** A run's end state, sealed, as the transaction that ends the run saves it. */
type SealedProfileState = NonNullable<ExecutionAttemptEnd['profileState']>;

/*
 * The worker's side of sessions and credentials (docs/sessions.md): the only place a
 * run's profile state and credential values are opened from what the database keeps sealed, and
 * where a run's end state is sealed again. The runner gets the values (and redacts them from
 * everything the run stores); nothing here logs one.
 */

/** Opening a sealed value failed: the message names what, never the value. */
function openSealed(secretBox: SecretBox, sealed: string, what: string): string {
  try {
    return secretBox.decrypt(sealed);
  } catch {
    throw new Error(`${what} cannot be decrypted (was SECRETS_KEY changed?)`);
  }
}

/**
 * Looks a credential up for a run of `organizationId` only (another organization's credential is
 * "not found" here as in the API): its origins at once, its field's value (current at the moment
 * of the call: a TOTP code) only when the runner asks, after it has checked the origin.
 */
export function createCredentialSource(
  db: PrismaClient,
  secretBox: SecretBox | undefined,
  organizationId: string,
): CredentialSource {
  return async ({ credential: id, field }: CredentialValue) => {
    if (!secretBox) throw new Error(`credential ${id} cannot be opened: this worker has no SECRETS_KEY`);
    const credential = await findCredentialForRun(db, organizationId, id);
    if (!credential) throw new Error(`credential ${id} not found (was it deleted?)`);
    return {
      origins: credential.origins,
      reveal: async () => {
        switch (field) {
          case 'username':
            if (credential.username === null) throw new Error(`credential ${id} has no username`);
            return credential.username;
          case 'password':
            if (credential.passwordEnc === null) throw new Error(`credential ${id} has no password`);
            return openSealed(secretBox, credential.passwordEnc, `the password of credential ${id}`);
          case 'totp': {
            if (credential.totpEnc === null) throw new Error(`credential ${id} has no TOTP secret`);
            const sealed = openSealed(secretBox, credential.totpEnc, `the TOTP secret of credential ${id}`);
            return totpCode(JSON.parse(sealed) as TotpSettings);
          }
        }
      },
    };
  };
}

/** A run's profile, opened: where its context starts, and what it saves when it ends. */
export interface RunBrowserSession {
  /** For runExecution: the state the context starts from, and where its end state goes. */
  readonly browserState: NonNullable<RunExecutionOptions['browserState']>;
  /** Whether a saved state was loaded (a new profile has none). */
  readonly loaded: boolean;
  /**
   * The end state to save with this outcome, sealed; null when `persist` says not to, none was
   * read, or it is larger than a profile holds (MAX_STORAGE_STATE_BYTES: then `warn` says so).
   */
  stateToSave(outcome: RunOutcome, warn: (message: string) => void): SealedProfileState | null;
}

/**
 * Opens the profile's latest state for a run. Throws when it cannot be opened (no SECRETS_KEY, or
 * another one than sealed it): the run must not go on logged out as if nothing were wrong.
 */
export async function openBrowserSession(
  db: PrismaClient,
  secretBox: SecretBox | undefined,
  profileId: string,
  persist: SessionPersist,
): Promise<RunBrowserSession> {
  const latest = await findLatestProfileState(db, profileId);
  if (latest && !secretBox) throw new Error(`profile ${profileId} cannot be opened: this worker has no SECRETS_KEY`);
  const initial =
    latest && secretBox
      ? (JSON.parse(openSealed(secretBox, latest.stateEnc, `the state of profile ${profileId}`)) as StorageState)
      : null;
  let end: StorageState | null = null;
  return {
    browserState: { initial, keepEnd: persist === 'never' ? undefined : (state) => void (end = state) },
    loaded: initial !== null,
    stateToSave(outcome, warn) {
      if (!end || !secretBox || !persistsAfter(persist, outcome.status)) return null;
      try {
        return { profileId, ...sealStorageState(secretBox, end) };
      } catch (error) {
        if (!(error instanceof StorageStateTooLarge)) throw error;
        warn(
          `The browser state was not saved to profile ${profileId}: it takes ${error.bytes} bytes, more than a profile holds (${MAX_STORAGE_STATE_BYTES})`,
        );
        return null;
      }
    },
  };
}
